"""Recognising a framework's model file: its suffix, else its first bytes (a loader's ``sniff``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def opens_like(path: Path, suffixes: tuple[str, ...], size: int, test: Callable[[bytes], bool]) -> bool:
    """True for a file named with one of ``suffixes`` (lower case), else whether ``test``
    accepts its first ``size`` bytes (fewer for a shorter file); False for a directory."""
    if path.is_dir():
        return False
    if path.suffix.lower() in suffixes:
        return True
    with open(path, "rb") as f:
        head = f.read(size)
    return test(head)
