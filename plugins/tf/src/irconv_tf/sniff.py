"""Whether a path is a TensorFlow model: cheap, imported when a loader is picked."""

from __future__ import annotations

from pathlib import Path

SUFFIXES = (".pb", ".pbtxt", ".meta", ".keras", ".h5")


def sniff(path: Path) -> bool:
    if path.is_dir():
        return (path / "saved_model.pb").is_file() or (path / "saved_model.pbtxt").is_file()
    return path.suffix.lower() in SUFFIXES
