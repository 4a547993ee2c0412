"""The TFLite tests' session-wide model cache (TF conversion is slow: each model is made once)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tflite_support.py

from tflite_support import ModelCache  # noqa: E402


@pytest.fixture(scope="session")
def tflite_models(tmp_path_factory: pytest.TempPathFactory) -> ModelCache:
    return ModelCache(tmp_path_factory.mktemp("tflite_models"))
