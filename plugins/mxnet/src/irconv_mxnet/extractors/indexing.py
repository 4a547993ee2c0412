"""Reductions (sum, mean, max, min, prod, norm, argmax, argmin) and lookups (take,
Embedding, where, one_hot)."""

from __future__ import annotations

from functools import partial

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import aliases, const_like, extractor, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Clamp,
    Convert,
    Floor,
    FloorMod,
    Gather,
    NotEqual,
    OneHot,
    Reshape,
    Select,
    ShapeOf,
    Squeeze,
    TopK,
    Unsqueeze,
)
from irconv_opset.build import convert_like, shape_of
from irconv_opset.lowering.reduction import Reduction

REDUCTIONS: dict[str, Reduction] = {
    "sum": Reduction.SUM, "mean": Reduction.MEAN, "max": Reduction.MAX, "min": Reduction.MIN, "prod": Reduction.PROD,
}


def _axes(ctx: ExtractContext) -> list[int]:
    """``axis`` (None or () = all), complemented by ``exclude``."""
    r = require_rank(ctx)
    axes = [normalize_axis(ctx, a, r) for a in ctx.attrs.ints("axis", [])]
    if not axes:
        axes = list(range(r))
        if ctx.attrs.bool("exclude", False):
            return []
        return axes
    if ctx.attrs.bool("exclude", False):
        return [a for a in range(r) if a not in axes]
    return sorted(set(axes))


def _at_least_1d(ctx: ExtractContext, out: OutPort, axes: list[int]) -> OutPort:
    """MXNet (outside NumPy mode) gives shape (1,), not a scalar, for a reduction over every axis."""
    if len(axes) == require_rank(ctx) and not ctx.attrs.bool("keepdims", False):
        return ctx.op(Reshape(special_zero=False), out, i64(ctx, [1], "shape"), suffix="as_1d")
    return out


def reduce(kind: str, node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = _axes(ctx)
    if not axes:
        return [ctx.input(0)]
    op = REDUCTIONS[kind].make(ctx.attrs.bool("keepdims", False))
    return [_at_least_1d(ctx, ctx.op(op, ctx.input(0), i64(ctx, axes, "axes"), suffix="reduce"), axes)]


@extractor("mxnet", "norm", produces=[Reduction.L1.op, Reduction.L2.op, Reshape])
def norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    order = ctx.attrs.int("ord", 2)
    if order not in (1, 2):
        raise ctx.attrs.bad("ord", order, "expected 1 or 2")
    axes = _axes(ctx)
    op = (Reduction.L1 if order == 1 else Reduction.L2).make(ctx.attrs.bool("keepdims", False))
    return [_at_least_1d(ctx, ctx.op(op, ctx.input(0), i64(ctx, axes, "axes"), suffix="reduce"), axes)]


@extractor("mxnet", "argmax", produces=[Reshape, TopK, Squeeze, Convert])
def argmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _arg_reduce(ctx, "max")


@extractor("mxnet", "argmin", produces=[Reshape, TopK, Squeeze, Convert])
def argmin(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _arg_reduce(ctx, "min")


def _arg_reduce(ctx: ExtractContext, mode: str) -> list[OutPort]:
    """argmax/argmin: the first index of the extreme, as the input's type (MXNet returns floats)."""
    x = ctx.input(0)
    axis = ctx.attrs.int("axis", None)
    flatten_all = axis is None
    if axis is None:
        x = ctx.op(Reshape(special_zero=False), x, i64(ctx, [-1], "flat"), suffix="flatten")
        axis = 0
    else:
        axis = normalize_axis(ctx, axis, require_rank(ctx))
    top = ctx.add(TopK(axis=axis, mode=mode, sort="none", index_element_type=ElementType.i32),
                  [x, i64(ctx, 1, "k")], "topk")
    index = top.out_port(1)
    if flatten_all:  # shape (1,), as MXNet outside NumPy mode
        return [convert_like(ctx, index, ctx.input(0))]
    if not ctx.attrs.bool("keepdims", False):
        index = ctx.op(Squeeze(), index, i64(ctx, [axis], "axis"), suffix="squeeze")
    return [convert_like(ctx, index, ctx.input(0))]


def _indices(ctx: ExtractContext, indices: OutPort, size: OutPort | int, mode: str) -> OutPort:
    """Float or int indices as i32, clipped or wrapped into [0, size)."""
    et = indices.data.element_type
    if et.is_float:
        indices = ctx.op(Floor(), indices, suffix="floor") if mode == "wrap" else indices
        indices = ctx.op(Convert(destination_type=ElementType.i64), indices, suffix="indices_i64")
    elif et is not ElementType.i64:
        indices = ctx.op(Convert(destination_type=ElementType.i64), indices, suffix="indices_i64")
    if mode == "wrap":
        assert isinstance(size, int)
        return ctx.op(FloorMod(), indices, i64(ctx, size, "size"), suffix="wrapped")
    if mode == "clip" and isinstance(size, int):
        return ctx.op(Clamp(min=0.0, max=float(size - 1)), indices, suffix="clipped")
    return indices


@extractor("mxnet", "take", produces=[Floor, Convert, FloorMod, Clamp, Gather])
def take(node: Node, ctx: ExtractContext) -> list[OutPort]:
    shape = ctx.input_shape(0)
    r = require_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 0), r)
    mode = ctx.attrs.choice("mode", ["clip", "wrap", "raise"], "clip")
    size = None if shape is None else shape[axis]
    if mode in ("clip", "wrap") and size is None:
        raise ConversionError(f"{ctx.where()}: mode {quoted(mode)} needs the size of axis {axis} to be static, got {shape}")
    indices = _indices(ctx, ctx.input(1), size if size is not None else 0, mode)
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), indices, i64(ctx, axis, "axis"))]


@extractor("mxnet", "Embedding", produces=[Convert, Clamp, Gather])
def embedding(node: Node, ctx: ExtractContext) -> list[OutPort]:
    size = ctx.attrs.int("input_dim")
    indices = _indices(ctx, ctx.input(0), size, "clip")
    return [ctx.op(Gather(batch_dims=0), ctx.input(1), indices, i64(ctx, 0, "axis"))]


@extractor("mxnet", "where", produces=[NotEqual, Unsqueeze, Select])
def where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Non-zero condition picks x; a 1-d condition selects whole rows of x."""
    cond, x, y = ctx.input(0), ctx.input(1), ctx.input(2)
    mask = ctx.op(NotEqual(), cond, const_like(ctx, 0, cond, "zero"), suffix="mask")
    cond_rank, x_rank = ctx.input_rank(0), ctx.input_rank(1)
    if cond_rank == 1 and x_rank is not None and x_rank > 1:
        mask = ctx.op(Unsqueeze(), mask, i64(ctx, list(range(1, x_rank)), "axes"), suffix="rows")
    return [ctx.op(Select(), mask, x, y)]


@extractor("mxnet", "one_hot", produces=[Convert, OneHot])
def one_hot(node: Node, ctx: ExtractContext) -> list[OutPort]:
    depth = ctx.attrs.int("depth")
    dtype = np.dtype(ctx.attrs.str("dtype", "float32"))
    indices = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(0), suffix="indices")
    on = ctx.const(np.asarray(ctx.attrs.float("on_value", 1.0), dtype), suffix="on")
    off = ctx.const(np.asarray(ctx.attrs.float("off_value", 0.0), dtype), suffix="off")
    return [ctx.op(OneHot(axis=-1), indices, i64(ctx, depth, "depth"), on, off)]


@extractor("mxnet", "size_array", produces=[ShapeOf, Reduction.PROD.op])
def size_array(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Reduction.PROD.make(True), shape_of(ctx, ctx.input(0)), i64(ctx, [0], "axis"))]



REDUCE = [record for kind, reduction in REDUCTIONS.items()
          for record in aliases("mxnet", [kind, f"{kind}_axis"], partial(reduce, kind),
                                produces=[reduction.op, Reshape])]
