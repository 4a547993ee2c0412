"""The ATen extractors of irconv-torch, one module per family of ops."""

from __future__ import annotations

from irconv.frontend import collect
from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    from irconv_torch.extractors import (
        activations,
        attention,
        creation,
        elementwise,
        experts,
        histogram,
        nn,
        normalization,
        recurrent,
        reduction,
        scatter,
        shape,
        strided,
        symbolic,
        vision,
    )

    return collect(activations, attention, creation, elementwise, experts, histogram, nn, normalization, recurrent,
                   reduction, scatter, shape, strided, symbolic, vision)
