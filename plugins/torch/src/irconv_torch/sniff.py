"""Recognising a ``.pt2`` archive (``torch.export.save``) without importing torch."""

from __future__ import annotations

import zipfile
from pathlib import Path

from irconv.frontend import opens_like


def looks_like_pt2(path: Path) -> bool:
    """True for a ``.pt2`` file, or a zip archive holding torch.export's ``archive_format``."""
    return opens_like(path, (".pt2",), 4, lambda head: head == b"PK\x03\x04" and _holds_archive_format(path))


def _holds_archive_format(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return any(name.endswith("/archive_format") or name == "archive_format" for name in archive.namelist())
    except zipfile.BadZipFile:
        return False
