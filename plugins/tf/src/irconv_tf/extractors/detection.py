"""Object-detection TF ops: non-maximum suppression and crop-and-resize."""

from __future__ import annotations

from irconv.plugins import Extractor


def extractors() -> list[Extractor]:
    return []
