"""Helpers for irconv-onnx unit tests: build small ONNX models on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def save_model(tmp_path: Path) -> Callable[..., Path]:
    """``save_model(model, name="m.onnx", **save_kwargs)`` -> path of the written file."""
    import onnx

    def save(model: Any, name: str = "m.onnx", **kwargs: Any) -> Path:
        path = tmp_path / name
        onnx.save_model(model, str(path), **kwargs)
        return path

    return save
