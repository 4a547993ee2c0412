"""image extractors."""

from __future__ import annotations

from irconv.plugins import Extractor


def extractors() -> list[Extractor]:
    return []
