"""Whole JAX/Flax networks through irconv-jax: skipped where jax, flax or OpenVINO is missing."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("openvino")
# the comparison helper the plugin's own tests use
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "plugins" / "jax" / "tests"))
