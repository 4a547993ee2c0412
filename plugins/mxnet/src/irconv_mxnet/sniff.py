"""Recognising MXNet model files from their first bytes."""

from __future__ import annotations

from pathlib import Path

from irconv_mxnet.ndarray_file import LIST_MAGIC

_HEAD = 4096


def looks_like_mxnet(path: Path) -> bool:
    """A ``.params`` NDArray list file, or a JSON file whose head shows a symbol's node list."""
    if path.is_dir():
        return False
    suffix = path.suffix.lower()
    with open(path, "rb") as f:
        head = f.read(_HEAD)
    if suffix == ".params":
        return len(head) >= 8 and int.from_bytes(head[:8], "little") == LIST_MAGIC
    if suffix != ".json":
        return False
    text = head.decode("utf-8", errors="replace")
    return '"nodes"' in text and '"op"' in text and ('"inputs"' in text or '"name"' in text)
