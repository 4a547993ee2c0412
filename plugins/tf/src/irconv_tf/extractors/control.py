"""TF2 functional control flow: While/StatelessWhile -> Loop, If/StatelessIf -> If."""

from __future__ import annotations

from irconv.plugins import Extractor


def extractors() -> list[Extractor]:
    return []
