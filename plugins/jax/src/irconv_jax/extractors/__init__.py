"""The StableHLO extractors of irconv-jax, one module per family of ops."""

from __future__ import annotations

from irconv.frontend import collect
from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    from irconv_jax.extractors import control_flow, elementwise, indexing, nn, shape

    return collect(control_flow, elementwise, indexing, nn, shape)
