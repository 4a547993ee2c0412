"""What every Caffe extractor uses: the layer behind a node, its parameters, constants."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor

from irconv_caffe.attributes import CaffeAttributes, ParamBlock
from irconv_caffe.layer import CaffeLayer

ExtractFn = Callable[[Node, ExtractContext], "Op | Sequence[OutPort]"]


def layer_of(ctx: ExtractContext) -> CaffeLayer:
    """The layer behind the node being extracted: its blobs and its description."""
    layer = ctx.source
    if not isinstance(layer, CaffeLayer):
        raise ConversionError(f"node {ctx.node.name!r} is not a Caffe layer")
    return layer


def params(ctx: ExtractContext, block: str) -> ParamBlock:
    """The layer's parameter block ``block`` (``"convolution_param"``), decoded on access."""
    value = ctx.attr(block)
    assert isinstance(value, ParamBlock), block
    return value


def is_set(ctx: ExtractContext, path: str) -> bool:
    """Whether the prototxt spelled out the field at ``path`` (``"relu6_param"``)."""
    attributes: Any = ctx.source_op.attributes
    return isinstance(attributes, CaffeAttributes) and attributes.is_set(path)


def caffe(op: str, produces: str, domain: str = "") -> Callable[[ExtractFn], Extractor]:
    """Decorator: turn an extract function into the ``Extractor`` record for Caffe ``op``
    (``domain``: a Python layer's ``module.Layer``)."""

    def wrap(fn: ExtractFn) -> Extractor:
        return Extractor(framework="caffe", op=op, extract=fn, produces=produces, domain=domain)

    return wrap


def input_rank(ctx: ExtractContext, idx: int = 0) -> int:
    """The rank of input ``idx``; an unknown rank is an error asking for a shape."""
    return ctx.require_rank(idx)


def normalize_axis(ctx: ExtractContext, axis: int, rank: int) -> int:
    return ctx.normalize_axis(axis, rank)


def const_i64(ctx: ExtractContext, values: Sequence[int] | int, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(values, dtype=np.int64), suffix=suffix)


def const_f32(ctx: ExtractContext, values: object, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(values, dtype=np.float32), suffix=suffix)


def per_axis(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """Shape ``values`` (covering input dims ``axis..``) to broadcast against a rank-``rank`` input."""
    trailing = rank - axis - values.ndim
    if trailing < 0:
        raise ValueError(f"a {values.ndim}-D parameter does not fit a rank-{rank} input at axis {axis}")
    return values.reshape(values.shape + (1,) * trailing)


def pick(values: Sequence[int], index: int, default: int) -> int:
    """Caffe's repeated geometry fields: none -> default, one -> all dims, else per dim."""
    if not values:
        return default
    return int(values[index] if len(values) > 1 else values[0])
