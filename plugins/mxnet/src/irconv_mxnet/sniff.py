"""Recognising MXNet model files from their first bytes."""

from __future__ import annotations

from pathlib import Path

_HEAD = 4096


def looks_like_mxnet(path: Path) -> bool:
    """A ``.params`` NDArray list file, or a JSON file whose head shows a symbol's node list.

    Asked about every model file whose loader is not named: another framework's file is
    turned down by its suffix, without reading it or importing the NDArray reader."""
    suffix = path.suffix.lower()
    if suffix not in (".params", ".json") or path.is_dir():
        return False
    with open(path, "rb") as f:
        head = f.read(_HEAD)
    if suffix == ".params":
        from irconv_mxnet.ndarray_file import LIST_MAGIC

        return len(head) >= 8 and int.from_bytes(head[:8], "little") == LIST_MAGIC
    text = head.decode("utf-8", errors="replace")
    return '"nodes"' in text and '"op"' in text and ('"inputs"' in text or '"name"' in text)
