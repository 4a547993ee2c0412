"""The torch tests: skipped where torch is not installed; seeded so weights repeat."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("openvino")
sys.path.insert(0, str(Path(__file__).parent))  # families.py, family_kit.py, torchvision_cpu_shim.py
# torch_support.py: the irconv-torch distribution's own tests hold it
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "plugins" / "torch" / "tests"))


@pytest.fixture(autouse=True)
def seeded() -> None:
    import torch

    torch.manual_seed(0)
