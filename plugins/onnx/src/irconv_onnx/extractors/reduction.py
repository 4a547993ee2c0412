"""Reduce* (axes as attribute, or as input from opset 13/18) and ArgMax/ArgMin."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, numpy_dtype
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Convert,
    Exp,
    Gather,
    LessEqual,
    Log,
    Multiply,
    ReduceL1,
    ReduceL2,
    ReduceMax,
    ReduceMean,
    ReduceMin,
    ReduceProd,
    ReduceSum,
    Select,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
    TopK,
)
from irconv_opset.build import all_axes, shape_of

from irconv_onnx.extractors._common import ALL_AXES_OPS, DROP_DYNAMIC_AXES_OPS, drop_dynamic_axes
from irconv_onnx.extractors._optional import HANDLED, WithDefaults

Build = Callable[[ExtractContext, OutPort, OutPort, bool], OutPort]


def _input_axes(ctx: ExtractContext) -> OutPort | None:
    """The axes input, or None for "leave the data as is" (noop_with_empty_axes)."""
    a = ctx.attrs
    value = ctx.input_value(1) if ctx.has_input(1) else np.zeros(0, np.int64)
    if value is None and ctx.input(1).data.shape == (0,):
        value = np.zeros(0, np.int64)  # an input that can only be empty
    if value is not None and value.size == 0:
        return None if a.int("noop_with_empty_axes", 0) else all_axes(ctx, ctx.input(0))
    return ctx.input(1)


def _attribute_axes(ctx: ExtractContext) -> OutPort:
    axes = ctx.attrs.ints("axes", None)
    if not axes:
        return all_axes(ctx, ctx.input(0))
    return i64(ctx, axes, "axes")


def reduce_axes_attribute(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A reduction before its axes became an input (opset 13 for ReduceSum, 18 for the others)."""
    return _reduce(ctx, _attribute_axes(ctx))


def reduce_axes_input(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _reduce(ctx, _input_axes(ctx))


def _reduce(ctx: ExtractContext, axes: OutPort | None) -> list[OutPort]:
    op_type = ctx.source_op.op_type
    build = REDUCTIONS[op_type][0]
    keep = bool(ctx.attrs.int("keepdims", 1))
    x = ctx.input(0)
    if axes is None:
        return [x]
    if not keep and ctx.has_input(1) and axes is ctx.inputs[1] and ctx.input_value(1) is None:
        # Run-time axes: keep the dims, then drop them with a Reshape of static rank.
        rank, axes_shape = ctx.input_rank(0), axes.data.shape
        if rank is not None and axes_shape is not None and len(axes_shape) == 1 and axes_shape[0] is not None:
            return [drop_dynamic_axes(ctx, build(ctx, x, axes, True), axes, rank, axes_shape[0])]
    result = build(ctx, x, axes, keep)
    if op_type in ("ReduceMax", "ReduceMin") and _reduces_nothing(ctx):
        return [_identity_fill(ctx, result, op_type == "ReduceMax")]
    return [result]


def _reduces_nothing(ctx: ExtractContext) -> bool:
    """True when the input is statically empty: every output element (if any) then reduces an
    empty set, whichever axes are reduced (a kept empty axis leaves no elements at all)."""
    shape = ctx.input_shape(0)
    return shape is not None and 0 in shape


def _identity_fill(ctx: ExtractContext, like: OutPort, is_max: bool) -> OutPort:
    """The max (min) over nothing is the identity of max (min): -inf (+inf), or the integer extreme."""
    et = like.data.element_type
    value: float
    dtype: Any
    if et is ElementType.boolean:  # max of nothing is false (any), min of nothing is true (all)
        value, dtype = not is_max, np.bool_
    elif et.is_float:
        value = -np.inf if is_max else np.inf
        dtype = numpy_dtype(et)
    else:
        info = np.iinfo(et.numpy)
        value, dtype = (info.min if is_max else info.max), et.numpy
    fill = ctx.const(np.asarray(value, dtype), suffix="identity")
    return ctx.op(Broadcast(), fill, shape_of(ctx, like, "reduced_shape"), suffix="empty_reduction")


def _plain(cls: type, ctx: ExtractContext, x: OutPort, axes: OutPort, keep: bool) -> OutPort:
    if x.data.element_type is ElementType.boolean:  # the CPU plugin reduces numbers only
        as_u8 = ctx.op(Convert(destination_type=ElementType.u8), x, suffix="as_u8")
        reduced = ctx.op(cls(keep_dims=keep), as_u8, axes, suffix="reduced")
        return ctx.op(Convert(destination_type=ElementType.boolean), reduced)
    return ctx.op(cls(keep_dims=keep), x, axes)


def _extreme(cls: type, is_max: bool, ctx: ExtractContext, x: OutPort, axes: OutPort, keep: bool) -> OutPort:
    """ReduceMax/ReduceMin, with the infinities the CPU plugin loses put back: it starts
    from the lowest (highest) finite value, so a max over only -inf (a fully masked
    attention row) comes out as that value, not -inf. A result at that value becomes -inf
    (+inf); only a true max of exactly the lowest finite float reads differently."""
    reduced = _plain(cls, ctx, x, axes, keep)
    et = x.data.element_type
    if not et.is_float or et.is_narrow_float:
        return reduced
    # f64 is computed in f32 on the CPU plugin: its limit is f32's.
    dtype = np.dtype(et.numpy)
    info = np.finfo(np.float32 if dtype == np.float64 else dtype)
    limit = ctx.const(np.asarray(info.min if is_max else info.max, dtype), suffix="finite_limit")
    # LessEqual both ways round: the CPU plugin's GreaterEqual is true for NaN.
    beyond = ctx.op(LessEqual(), *((reduced, limit) if is_max else (limit, reduced)), suffix="at_limit")
    infinity = ctx.const(np.asarray(-np.inf if is_max else np.inf, dtype), suffix="infinity")
    return ctx.op(Select(), beyond, infinity, reduced)


def _log_sum(ctx: ExtractContext, x: OutPort, axes: OutPort, keep: bool) -> OutPort:
    return ctx.op(Log(), ctx.op(ReduceSum(keep_dims=keep), x, axes, suffix="sum"))


def _log_sum_exp(ctx: ExtractContext, x: OutPort, axes: OutPort, keep: bool) -> OutPort:
    """log(sum(exp(x - max))) + max, stable for large inputs."""
    peak = ctx.op(ReduceMax(keep_dims=True), x, axes, suffix="max")
    exp = ctx.op(Exp(), ctx.op(Subtract(), x, peak, suffix="shifted"), suffix="exp")
    total = ctx.op(Log(), ctx.op(ReduceSum(keep_dims=keep), exp, axes, suffix="sum"), suffix="log")
    if not keep:
        peak = ctx.op(Squeeze(), peak, axes, suffix="max_squeezed")
    return ctx.op(Add(), total, peak)


def _sum_square(ctx: ExtractContext, x: OutPort, axes: OutPort, keep: bool) -> OutPort:
    return ctx.op(ReduceSum(keep_dims=keep), ctx.op(Multiply(), x, x, suffix="square"), axes)


#: Per reduction: how it is built, what that may build besides the axes.
REDUCTIONS: dict[str, tuple[Build, tuple[type[Op], ...]]] = {
    **{name: (partial(_plain, made), (made, Convert)) for name, made in {
        "ReduceSum": ReduceSum, "ReduceMean": ReduceMean, "ReduceProd": ReduceProd, "ReduceL1": ReduceL1,
        "ReduceL2": ReduceL2}.items()},
    "ReduceMax": (partial(_extreme, ReduceMax, True), (ReduceMax, Convert, LessEqual, Select, Broadcast, ShapeOf)),
    "ReduceMin": (partial(_extreme, ReduceMin, False), (ReduceMin, Convert, LessEqual, Select, Broadcast, ShapeOf)),
    "ReduceLogSum": (_log_sum, (ReduceSum, Log)),
    "ReduceLogSumExp": (_log_sum_exp, (ReduceMax, ReduceSum, Exp, Log, Subtract, Squeeze, Add)),
    "ReduceSumSquare": (_sum_square, (ReduceSum, Multiply)),
}
#: The opset from which a reduction's axes are an input (a hole in it is all axes, or none).
_AXES_INPUT_FROM = {"ReduceSum": 13}
_AXES = {1: HANDLED}

REDUCTION_RECORDS = [
    record for name, (_, made) in REDUCTIONS.items() for record in [
        *aliases("onnx", [name], reduce_axes_attribute, versions=(1, _AXES_INPUT_FROM.get(name, 18) - 1),
                 produces=[*made, *ALL_AXES_OPS]),
        *aliases("onnx", [name], WithDefaults(reduce_axes_input, _AXES), versions=(_AXES_INPUT_FROM.get(name, 18), None),
                 produces=[*made, *ALL_AXES_OPS, *DROP_DYNAMIC_AXES_OPS]),
    ]
]


@extractor("onnx", "ArgMax", produces=[TopK, Slice, Gather, ShapeOf, Subtract, Squeeze])
def arg_max(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _arg("max", ctx)


@extractor("onnx", "ArgMin", produces=[TopK, Slice, Gather, ShapeOf, Subtract, Squeeze])
def arg_min(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _arg("min", ctx)


def _arg(mode: str, ctx: ExtractContext) -> list[OutPort]:
    """TopK with k=1 (stable: the first of equal values), the last index by flipping."""
    a = ctx.attrs
    axis = a.int("axis", 0)
    keep = bool(a.int("keepdims", 1))
    last = bool(a.int("select_last_index", 0))
    x = ctx.input(0)
    if last:
        big = np.iinfo(np.int64).max
        x = ctx.op(Slice(), x, i64(ctx, [-1]), i64(ctx, [-big]), i64(ctx, [-1]), i64(ctx, [axis]), suffix="flip")
    top = ctx.add(TopK(axis=axis, mode=mode, sort="value", index_element_type=ElementType.i64, stable=True),
                  [x, i64(ctx, 1)], "topk")
    index = top.out_port(1)
    if last:
        dim = ctx.op(Gather(), shape_of(ctx, ctx.input(0)), i64(ctx, [axis]), i64(ctx, 0),
                     suffix="dim")
        last_index = ctx.op(Subtract(), dim, i64(ctx, [1]), suffix="last")
        index = ctx.op(Subtract(), last_index, index, suffix="unflip")
    if not keep:
        index = ctx.op(Squeeze(), index, i64(ctx, [axis]), suffix="squeeze")
    return [index]
