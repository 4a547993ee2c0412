"""Recognising an ONNX file from its first bytes, not only its suffix."""

from __future__ import annotations

from pathlib import Path

from irconv.frontend import opens_like

# ModelProto fields that can open a serialized model: ir_version (1, varint) or one of
# the length-delimited fields producer_name..opset_import/metadata/functions.
_OPENING_TAGS = {0x08, 0x12, 0x1A, 0x22, 0x2A, 0x32, 0x3A, 0x42, 0x72, 0x82}


def looks_like_onnx(path: Path) -> bool:
    """True for an ``.onnx`` file or a file whose bytes open like a ModelProto."""
    return opens_like(path, (".onnx",), 16, _opens_like_model_proto)


def _opens_like_model_proto(head: bytes) -> bool:
    if len(head) < 4 or head[0] != 0x08:
        return False
    # ir_version is a small varint (1..20), then the next field tag.
    version = head[1]
    return 1 <= version <= 32 and head[2] in _OPENING_TAGS
