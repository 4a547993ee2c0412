"""Fixtures of the Hugging Face folder tests: tiny checkpoints made once per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # checkpoints.py

pytest.importorskip("openvino_genai")
pytest.importorskip("openvino_tokenizers")
pytest.importorskip("safetensors")
