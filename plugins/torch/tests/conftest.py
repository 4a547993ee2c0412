"""The irconv-torch tests: skipped where torch is not installed; seeded so weights repeat."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("openvino")
sys.path.insert(0, str(Path(__file__).parent))  # torch_support.py


@pytest.fixture(autouse=True)
def seeded() -> None:
    import torch

    torch.manual_seed(0)
