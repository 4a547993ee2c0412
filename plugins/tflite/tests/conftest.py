"""Tests of irconv-tflite that need no TensorFlow: models are written with the flatbuffers
builder (``tiny_models``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # tiny_models.py
