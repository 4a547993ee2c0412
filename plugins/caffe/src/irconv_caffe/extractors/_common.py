"""What every Caffe extractor shares: its registration spelling, the layer behind a node,
and Caffe's repeated geometry fields."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor

from irconv_caffe.layer import CaffeLayer

#: ``@caffe("Convolution", produces=[...])``; a Python layer's ``module.Layer`` is its ``domain``.
caffe = partial(extractor, "caffe")


def layer_of(ctx: ExtractContext) -> CaffeLayer:
    """The layer behind the node being extracted: its blobs and its description."""
    layer = ctx.source
    if not isinstance(layer, CaffeLayer):
        raise ConversionError(f"node {ctx.node.name!r} is not a Caffe layer")
    return layer


def pick(values: Sequence[int], index: int, default: int) -> int:
    """Caffe's repeated geometry fields: none -> default, one -> all dims, else per dim."""
    if not values:
        return default
    return int(values[index] if len(values) > 1 else values[0])
