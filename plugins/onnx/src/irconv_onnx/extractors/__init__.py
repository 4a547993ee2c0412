"""Extractors of the ONNX front end, one module per op family."""

from __future__ import annotations

from irconv.frontend import collect
from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    """Every extractor this plugin provides (modules imported here, not at plugin import)."""
    from irconv_onnx.extractors import (
        attention,
        contrib,
        control_flow,
        elementwise,
        image,
        loss,
        ml,
        nn,
        normalization,
        quantization,
        reduction,
        sequence,
        shape,
        signal,
        tensor_sequences,
        text,
        unary,
    )

    modules = (elementwise, unary, reduction, shape, nn, normalization, image, loss, quantization, sequence,
               signal, control_flow, contrib, attention, ml,
               tensor_sequences, text)
    return collect(*modules)
