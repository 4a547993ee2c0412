"""Recognising a serialized ``jax.export`` artifact without importing jax.

The artifact is a flatbuffer without a file identifier, so nothing in its first bytes names
it: the suffix does (``.jaxexport``, or any name with ``--framework jax``)."""

from __future__ import annotations

from pathlib import Path

SUFFIXES = (".jaxexport",)


def looks_like_jax_export(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in SUFFIXES
