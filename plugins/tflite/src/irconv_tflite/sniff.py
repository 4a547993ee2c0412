"""Recognising a TFLite flatbuffer from its first bytes, not only its suffix."""

from __future__ import annotations

from pathlib import Path

from irconv.frontend import opens_like

#: The schema's file identifier, stored after the root table offset.
IDENTIFIER = b"TFL3"


def looks_like_tflite(path: Path) -> bool:
    """True for a ``.tflite`` file or a file carrying the ``TFL3`` identifier at bytes 4..8."""
    return opens_like(path, (".tflite",), 8, lambda head: len(head) == 8 and head[4:8] == IDENTIFIER)
