"""Reductions (sum, mean, max, min, prod, norm, argmax, argmin) and lookups (take,
Embedding, where, one_hot)."""

from __future__ import annotations

from functools import partial

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv.types import ElementType

from irconv_mxnet.extractors._common import (
    bad,
    flag,
    i64,
    integer,
    ints,
    like_const,
    mx_op,
    normalize_axis,
    number,
    optional_int,
    rank,
    shape_of,
    text,
    to_type_of,
)

REDUCTIONS = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin", "prod": "ReduceProd"}


def _axes(ctx: ExtractContext) -> list[int]:
    """``axis`` (None or () = all), complemented by ``exclude``."""
    r = rank(ctx, 0)
    value = ctx.attr("axis", None)
    axes = [] if value is None or value == () else [normalize_axis(ctx, a, r) for a in ints(ctx, "axis")]
    if not axes:
        axes = list(range(r))
        if flag(ctx, "exclude", False):
            return []
        return axes
    if flag(ctx, "exclude", False):
        return [a for a in range(r) if a not in axes]
    return sorted(set(axes))


def _at_least_1d(ctx: ExtractContext, out: OutPort, axes: list[int]) -> OutPort:
    """MXNet (outside NumPy mode) gives shape (1,), not a scalar, for a reduction over every axis."""
    from irconv_opset import Reshape

    if len(axes) == rank(ctx, 0) and not flag(ctx, "keepdims", False):
        return ctx.op(Reshape(special_zero=False), out, i64(ctx, [1], "shape"), suffix="as_1d")
    return out


def reduce(kind: str, node: Node, ctx: ExtractContext) -> list[OutPort]:
    import irconv_opset

    axes = _axes(ctx)
    if not axes:
        return [ctx.input(0)]
    op = getattr(irconv_opset, REDUCTIONS[kind])(keep_dims=flag(ctx, "keepdims", False))
    return [_at_least_1d(ctx, ctx.op(op, ctx.input(0), i64(ctx, axes, "axes"), suffix="reduce"), axes)]


def norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import ReduceL1, ReduceL2

    order = integer(ctx, "ord", 2)
    if order not in (1, 2):
        raise bad(ctx, "ord", order, "expected 1 or 2")
    axes = _axes(ctx)
    op = (ReduceL1 if order == 1 else ReduceL2)(keep_dims=flag(ctx, "keepdims", False))
    return [_at_least_1d(ctx, ctx.op(op, ctx.input(0), i64(ctx, axes, "axes"), suffix="reduce"), axes)]


def arg_reduce(mode: str, node: Node, ctx: ExtractContext) -> list[OutPort]:
    """argmax/argmin: the first index of the extreme, as the input's type (MXNet returns floats)."""
    from irconv_opset import Reshape, Squeeze, TopK

    x = ctx.input(0)
    axis = optional_int(ctx, "axis")
    flatten_all = axis is None
    if axis is None:
        x = ctx.op(Reshape(special_zero=False), x, i64(ctx, [-1], "flat"), suffix="flatten")
        axis = 0
    else:
        axis = normalize_axis(ctx, axis, rank(ctx, 0))
    top = ctx.add(TopK(axis=axis, mode=mode, sort="none", index_element_type=ElementType.i32),
                  [x, i64(ctx, 1, "k")], "topk")
    index = top.out_port(1)
    if flatten_all:  # shape (1,), as MXNet outside NumPy mode
        return [to_type_of(ctx, index, ctx.input(0))]
    if not flag(ctx, "keepdims", False):
        index = ctx.op(Squeeze(), index, i64(ctx, [axis], "axis"), suffix="squeeze")
    return [to_type_of(ctx, index, ctx.input(0))]


def _indices(ctx: ExtractContext, indices: OutPort, size: OutPort | int, mode: str) -> OutPort:
    """Float or int indices as i32, clipped or wrapped into [0, size)."""
    from irconv_opset import Clamp, Convert, Floor, FloorMod

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


def take(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Gather

    shape = ctx.input_shape(0)
    r = rank(ctx, 0)
    axis = normalize_axis(ctx, integer(ctx, "axis", 0), r)
    mode = text(ctx, "mode", "clip")
    size = None if shape is None else shape[axis]
    if mode in ("clip", "wrap") and size is None:
        raise bad(ctx, "mode", mode, f"the size of axis {axis} must be static")
    indices = _indices(ctx, ctx.input(1), size if size is not None else 0, mode)
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), indices, i64(ctx, axis, "axis"))]


def embedding(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Gather

    size = integer(ctx, "input_dim")
    indices = _indices(ctx, ctx.input(0), size, "clip")
    return [ctx.op(Gather(batch_dims=0), ctx.input(1), indices, i64(ctx, 0, "axis"))]


def where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Non-zero condition picks x; a 1-d condition selects whole rows of x."""
    from irconv_opset import NotEqual, Select, Unsqueeze

    cond, x, y = ctx.input(0), ctx.input(1), ctx.input(2)
    mask = ctx.op(NotEqual(), cond, like_const(ctx, 0, cond, "zero"), suffix="mask")
    cond_rank, x_rank = ctx.input_rank(0), ctx.input_rank(1)
    if cond_rank == 1 and x_rank is not None and x_rank > 1:
        mask = ctx.op(Unsqueeze(), mask, i64(ctx, list(range(1, x_rank)), "axes"), suffix="rows")
    return [ctx.op(Select(), mask, x, y)]


def one_hot(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Convert, OneHot

    depth = integer(ctx, "depth")
    dtype = np.dtype(text(ctx, "dtype", "float32"))
    indices = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(0), suffix="indices")
    on = ctx.const(np.asarray(number(ctx, "on_value", 1.0), dtype), suffix="on")
    off = ctx.const(np.asarray(number(ctx, "off_value", 0.0), dtype), suffix="off")
    return [ctx.op(OneHot(axis=-1), indices, i64(ctx, depth, "depth"), on, off)]


def size_array(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import ReduceProd

    return [ctx.op(ReduceProd(keep_dims=True), shape_of(ctx, ctx.input(0)), i64(ctx, [0], "axis"))]


def extractors() -> list[Extractor]:
    records: list[Extractor] = []
    for kind in REDUCTIONS:
        records += mx_op((kind, f"{kind}_axis"), partial(reduce, kind), REDUCTIONS[kind])
    records += mx_op("norm", norm, "ReduceL1, ReduceL2")
    records += mx_op("argmax", partial(arg_reduce, "max"), "TopK")
    records += mx_op("argmin", partial(arg_reduce, "min"), "TopK")
    records += mx_op("take", take, "Gather")
    records += mx_op("Embedding", embedding, "Gather")
    records += mx_op("where", where, "Select")
    records += mx_op("one_hot", one_hot, "OneHot")
    records += mx_op("size_array", size_array, "ReduceProd")
    return records
