"""Recognising a ``.pt2`` archive (``torch.export.save``) without importing torch."""

from __future__ import annotations

import zipfile
from pathlib import Path


def looks_like_pt2(path: Path) -> bool:
    """True for a ``.pt2`` file, or a zip archive holding torch.export's ``archive_format``."""
    if path.is_dir():
        return False
    if path.suffix.lower() == ".pt2":
        return True
    with open(path, "rb") as stream:
        if stream.read(4) != b"PK\x03\x04":
            return False
    try:
        with zipfile.ZipFile(path) as archive:
            return any(name.endswith("/archive_format") or name == "archive_format" for name in archive.namelist())
    except zipfile.BadZipFile:
        return False
