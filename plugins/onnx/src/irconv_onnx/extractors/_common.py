"""Helpers shared by the extractor modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor, opsets
from irconv.types import ElementType

from irconv_onnx.attributes import Attributes
from irconv_onnx.extractors._optional import Defaults, WithDefaults

FRAMEWORK = "onnx"
Extract = Callable[[Node, ExtractContext], Any]


def onnx_op(op: str, extract: Extract, first: int = 1, last: int | None = None, *, produces: str = "",
            domain: str = "", optional: Defaults | None = None) -> Extractor:
    """An extractor record for ONNX ``op`` in opsets ``first..last`` of ``domain``.

    ``optional`` declares every optional input by index: a ``Default`` filled in when the
    input is empty, or ``HANDLED`` when the extractor deals with its absence (see _optional).
    """
    if optional:
        extract = WithDefaults(extract, dict(optional))
    return Extractor(FRAMEWORK, op, extract, domain=domain, opsets=opsets(first, last), produces=produces)


def attrs(ctx: ExtractContext) -> Attributes:
    """The node's attributes: the adapter the ONNX loader put on the source op."""
    attributes = ctx.source_op.attributes
    if not isinstance(attributes, Attributes):
        raise ConversionError(f"node {ctx.node.name!r} was not made by the ONNX loader (no ONNX attributes)")
    return attributes


def opset(ctx: ExtractContext) -> int:
    """The version of the node's domain that the model imports."""
    return ctx.source_op.opset_version


def i64(ctx: ExtractContext, values: Any, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(values, dtype=np.int64), suffix=suffix)


def typed_const(ctx: ExtractContext, value: Any, like: OutPort, suffix: str = "const") -> OutPort:
    """A constant of ``like``'s element type (f32 when not known)."""
    et = like.data.element_type
    dtype = et.numpy if et is not ElementType.dynamic and et is not ElementType.bf16 else np.float32
    return ctx.const(np.asarray(value, dtype=dtype), suffix=suffix)


def rank_of(ctx: ExtractContext, port: OutPort) -> OutPort:
    """The rank as a 1-element i64 tensor, shape-agnostic."""
    from irconv_opset import ShapeOf

    return ctx.op(ShapeOf(), ctx.op(ShapeOf(), port, suffix="shape"), suffix="rank")


def axes_from(ctx: ExtractContext, port: OutPort, start: int) -> OutPort:
    """``[start, ..., rank-1]`` (or ``[start..-1]`` for negative start) as an i64 tensor."""
    from irconv_opset import Range, Squeeze

    rank = port.data.shape
    if rank is not None:
        r = len(rank)
        first = start + r if start < 0 else start
        return i64(ctx, list(range(first, r)), suffix="axes")
    if start < 0:
        return i64(ctx, list(range(start, 0)), suffix="axes")
    stop = ctx.op(Squeeze(), rank_of(ctx, port), i64(ctx, [0]), suffix="rank_scalar")
    return ctx.op(Range(output_type=ElementType.i64), i64(ctx, start), stop, i64(ctx, 1), suffix="axes")


def all_axes(ctx: ExtractContext, port: OutPort) -> OutPort:
    return axes_from(ctx, port, 0)


def et_of_onnx(code: int, where: str) -> ElementType:
    from irconv_onnx.tensors import element_type

    return element_type(code, where)


def axes_mask(ctx: ExtractContext, axes: OutPort, rank: int) -> OutPort:
    """An i64 [rank] vector with 1 at the (possibly negative) ``axes`` and 0 elsewhere."""
    from irconv_opset import Broadcast, Convert, FloorMod, ScatterElementsUpdate, ShapeOf

    axes = ctx.op(Convert(destination_type=ElementType.i64), axes, suffix="axes_i64")
    axes = ctx.op(FloorMod(), axes, i64(ctx, rank), suffix="axes_norm")
    ones = ctx.op(Broadcast(), i64(ctx, 1), ctx.op(ShapeOf(), axes, suffix="axes_count"), suffix="ones")
    return ctx.op(ScatterElementsUpdate(), i64(ctx, np.zeros(rank, np.int64)), axes, ones, i64(ctx, 0),
                  suffix="axes_mask")


def unsqueeze_dynamic_axes(ctx: ExtractContext, x: OutPort, axes: OutPort, rank: int, count: int) -> OutPort:
    """Unsqueeze by run-time axes as a Reshape whose target has a static length (rank + count)."""
    from irconv_opset import CumSum, Equal, Gather, Maximum, Reshape, Select, ShapeOf, Subtract

    out_rank = rank + count
    is_new = axes_mask(ctx, axes, out_rank)
    kept = ctx.op(Subtract(), i64(ctx, np.ones(out_rank, np.int64)), is_new, suffix="kept")
    source = ctx.op(Subtract(), ctx.op(CumSum(), kept, i64(ctx, 0), suffix="kept_cumsum"), i64(ctx, 1),
                    suffix="source_dim")
    source = ctx.op(Maximum(), source, i64(ctx, 0), suffix="source_dim_clamped")
    dims = ctx.op(Gather(), ctx.op(ShapeOf(), x, suffix="shape"), source, i64(ctx, 0), suffix="dims")
    target = ctx.op(Select(), ctx.op(Equal(), is_new, i64(ctx, 1), suffix="is_new"), i64(ctx, 1), dims,
                    suffix="target")
    return ctx.op(Reshape(special_zero=False), x, target)


def drop_dynamic_axes(ctx: ExtractContext, kept_dims: OutPort, axes: OutPort, rank: int, count: int) -> OutPort:
    """Reshape a keep_dims result to drop run-time ``axes`` (target length rank - count is static)."""
    from irconv_opset import Add, Gather, Multiply, Reshape, ShapeOf, TopK

    mask = axes_mask(ctx, axes, rank)
    keys = ctx.op(Add(), i64(ctx, np.arange(rank, dtype=np.int64)), ctx.op(Multiply(), mask, i64(ctx, rank)),
                  suffix="keys")
    top = ctx.add(TopK(axis=0, mode="min", sort="value", index_element_type=ElementType.i64),
                  [keys, i64(ctx, rank - count)], "kept_axes")
    dims = ctx.op(Gather(), ctx.op(ShapeOf(), kept_dims, suffix="shape"), top.out_port(1), i64(ctx, 0), suffix="dims")
    return ctx.op(Reshape(special_zero=False), kept_dims, dims)
