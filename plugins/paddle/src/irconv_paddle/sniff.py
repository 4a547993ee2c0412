"""Recognising Paddle programs: ``.pdmodel`` by suffix, a ``.json`` by its PIR header."""

from __future__ import annotations

from pathlib import Path

_HEAD = 256


def looks_like_paddle(path: Path) -> bool:
    """A ``.pdmodel``, a ``.json`` opening with PIR's ``base_code`` header, or a folder
    holding one of them beside its ``.pdiparams``. Other frameworks' files are turned
    down by suffix without being read."""
    if path.is_dir():
        return any(p.suffix in (".pdmodel", ".json") and p.with_suffix(".pdiparams").exists() for p in path.iterdir())
    suffix = path.suffix.lower()
    if suffix == ".pdmodel":
        return True
    if suffix != ".json":
        return False
    with open(path, "rb") as f:
        head = f.read(_HEAD).decode("utf-8", errors="replace")
    return '"base_code"' in head and '"pir"' in head
