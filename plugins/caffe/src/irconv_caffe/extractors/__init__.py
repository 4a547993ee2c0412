"""Extractors for the Caffe layer catalogue, one module per family."""

from __future__ import annotations

from irconv.frontend import collect
from irconv.plugins import Extractor

from irconv_caffe.extractors import activations, convolution, detection, misc, normalization, pooling, recurrent, tensor

FAMILIES = (convolution, pooling, normalization, activations, tensor, detection, recurrent, misc)


def all_extractors() -> list[Extractor]:
    return collect(*FAMILIES)
