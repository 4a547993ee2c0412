"""Recognising a TFLite flatbuffer from its first bytes, not only its suffix."""

from __future__ import annotations

from pathlib import Path

#: The schema's file identifier, stored after the root table offset.
IDENTIFIER = b"TFL3"


def looks_like_tflite(path: Path) -> bool:
    """True for a ``.tflite`` file or a file carrying the ``TFL3`` identifier at bytes 4..8."""
    if path.is_dir():
        return False
    if path.suffix.lower() == ".tflite":
        return True
    with open(path, "rb") as f:
        head = f.read(8)
    return len(head) == 8 and head[4:8] == IDENTIFIER
