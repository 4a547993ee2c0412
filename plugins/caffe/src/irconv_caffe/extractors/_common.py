"""What Caffe extractors share beyond the front-end vocabulary: the layer behind a node
(its blobs) and Caffe's repeated geometry fields."""

from __future__ import annotations

from collections.abc import Sequence

from irconv import ExtractContext
from irconv.errors import ConversionError

from irconv_caffe.layer import CaffeLayer


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
