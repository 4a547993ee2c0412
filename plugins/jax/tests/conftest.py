"""The irconv-jax tests: skipped where jax or OpenVINO is not installed; jax on CPU."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
pytest.importorskip("jax")
pytest.importorskip("openvino")
sys.path.insert(0, str(Path(__file__).parent))  # jax_support.py
