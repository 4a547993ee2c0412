"""Reductions, arg-max/min and top-k."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, input_scalar
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Convert,
    Equal,
    FloorMod,
    Gather,
    Multiply,
    Reshape,
    ShapeOf,
    Squeeze,
    TopK,
    Unsqueeze,
)
from irconv_opset.lowering.reduction import Reduction

from irconv_tf.dtypes import element_type
from irconv_tf.extractors._base import on_inputs


def _reduce(node: Node, ctx: ExtractContext, make: Callable[..., Op], empty: str | None = None) -> list[OutPort]:
    """A reduction; ``empty`` ("lowest"/"highest") is what TF's Max/Min give over nothing."""
    keep = ctx.attrs.bool("keep_dims", False)
    if ctx.input_shape(1) == (0,):
        # no axes: the input itself (computed empty axes would give the runtime a dynamic rank)
        return [ctx.input(0)]
    if empty is not None:
        filled = _empty_extreme(ctx, keep, empty)
        if filled is not None:
            return [filled]
    if not keep and ctx.input_value(1) is None:
        dropped = _computed_axes_dropped(ctx, make, ctx.input(0))
        if dropped is not None:
            return [dropped]
    return on_inputs(ctx, make(keep_dims=keep))


def _logical(node: Node, ctx: ExtractContext, make: Callable[..., Op], numeric: Callable[..., Op]) -> list[OutPort]:
    """All/Any: the logical reduction over constant axes; over computed axes, the Min/Max of
    the values as u8 (the CPU plugin compiles no logical reduction with run-time axes)."""
    if ctx.input_value(1) is not None or ctx.input_shape(1) == (0,):
        return _reduce(node, ctx, make)
    keep = ctx.attrs.bool("keep_dims", False)
    data = ctx.op(Convert(destination_type=ElementType.u8), ctx.input(0), suffix="as_u8")
    reduced = None if keep else _computed_axes_dropped(ctx, numeric, data)
    if reduced is None:
        reduced = ctx.op(numeric(keep_dims=keep), data, ctx.input(1), suffix="reduce")
    return [ctx.op(Convert(destination_type=ElementType.boolean), reduced, suffix="as_boolean")]


#: What a reduction over computed axes with keep_dims=False builds besides the reduction.
_COMPUTED_AXES_OPS = (Add, Convert, Equal, FloorMod, Gather, Multiply, Reshape, ShapeOf, TopK, Unsqueeze, Reduction.MAX.op)


def _computed_axes_dropped(ctx: ExtractContext, make: Callable[..., Op], data: OutPort) -> OutPort | None:
    """Reduce over computed axes with keep_dims=False, keeping the result's rank static.
    The runtime cannot know the rank of a reduction over axes it only learns at run time
    (the CPU plugin refuses it). The rank is R - k for R input dims and k axes, so: reduce
    with keep_dims=True, then Reshape to the kept dims, found by TopK(min) over
    ``position + R * reduced`` (the R - k smallest keys are the kept positions, in order).
    """
    rank, axes_shape = ctx.input_rank(0), ctx.input_shape(1)
    if rank is None or axes_shape is None or len(axes_shape) > 1 or None in axes_shape:
        return None
    count = math.prod(d for d in axes_shape if d is not None)
    kept = rank - count
    reduced = ctx.op(make(keep_dims=True), data, ctx.input(1), suffix="reduce_keep_dims")
    if kept <= 0:
        return ctx.op(Reshape(special_zero=False), reduced, i64(ctx, np.zeros(0, np.int64), "scalar"))
    axes = ctx.op(Reshape(special_zero=False), ctx.input(1), i64(ctx, [-1], "flat"), suffix="axes")
    axes = ctx.op(Convert(destination_type=ElementType.i64), axes, suffix="axes_i64")
    axes = ctx.op(FloorMod(), axes, i64(ctx, rank, "rank"), suffix="axes_normalised")
    positions = i64(ctx, np.arange(rank), "positions")
    column = ctx.op(Unsqueeze(), positions, i64(ctx, [1], "column"), suffix="position_column")
    hits = ctx.op(
        Convert(destination_type=ElementType.i64), ctx.op(Equal(), column, axes, suffix="hits"), suffix="hits_i64"
    )
    is_reduced = ctx.op(Reduction.MAX.make(False), hits, i64(ctx, 1, "axis_one"), suffix="is_reduced")
    keys = ctx.op(Add(), positions, ctx.op(Multiply(), is_reduced, i64(ctx, rank, "weight")), suffix="keys")
    top = ctx.add(
        TopK(axis=0, mode="min", sort="value", index_element_type=ElementType.i64),
        [keys, i64(ctx, kept, "kept")],
        suffix="kept",
    )
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), reduced, suffix="reduced_dims")
    target = ctx.op(Gather(batch_dims=0), dims, top.out_port(0), i64(ctx, 0, "gather_axis"), suffix="target")
    return ctx.op(Reshape(special_zero=False), reduced, target)


def _empty_extreme(ctx: ExtractContext, keep: bool, which: str) -> OutPort | None:
    """Max/Min over a statically empty axis: TF's identity element (-inf/inf for floats, the
    type's lowest/highest integer), which the runtime does not give."""
    shape, axes = ctx.input_shape(0), ctx.input_value(1)
    if shape is None or None in shape or axes is None:
        return None
    reduced = {int(a) % len(shape) for a in np.reshape(axes, [-1])} if shape else set()
    if not any(shape[a] == 0 for a in reduced):
        return None
    out = [1 if a in reduced else d for a, d in enumerate(shape) if keep or a not in reduced]
    dtype = ctx.input_type(0).numpy
    if np.issubdtype(dtype, np.floating):
        value = -np.inf if which == "lowest" else np.inf
    elif dtype == np.bool_:
        value = which != "lowest"
    else:
        value = np.iinfo(dtype).min if which == "lowest" else np.iinfo(dtype).max
    return ctx.const(np.full(out, value, dtype), suffix="empty_reduction")


def _arg(node: Node, ctx: ExtractContext, mode: str) -> list[OutPort]:
    axis = int(input_scalar(ctx, 1, "dimension"))
    out = element_type(ctx.attrs.int("output_type", 9), ctx.where())
    topk = ctx.add(
        TopK(axis=axis, mode=mode, sort="none", index_element_type=out),
        [ctx.input(0), i64(ctx, 1, "k")],
        suffix="TopK",
    )
    return [ctx.op(Squeeze(), topk.out_port(1), i64(ctx, [axis], "axis"))]


@extractor("tf", "TopKV2", produces=[TopK])
def _top_k(node: Node, ctx: ExtractContext) -> list[OutPort]:
    out = element_type(ctx.attrs.int("index_type", 3), ctx.where())
    sort = "value" if ctx.attrs.bool("sorted", True) else "none"
    topk = ctx.add(
        TopK(axis=-1, mode="max", sort=sort, index_element_type=out), [ctx.input(0), ctx.input(1)], suffix="TopK"
    )
    return [topk.out_port(0), topk.out_port(1)]


#: TF's reductions over axes: the reduction, and what an empty one gives (None: the op's own).
_REDUCTIONS: dict[str, tuple[Reduction, str | None]] = {
    "Mean": (Reduction.MEAN, None),
    "Sum": (Reduction.SUM, None),
    "Max": (Reduction.MAX, "lowest"),
    "Min": (Reduction.MIN, "highest"),
    "Prod": (Reduction.PROD, None),
    "EuclideanNorm": (Reduction.L2, None),
}


def _reduction(node: Node, ctx: ExtractContext) -> list[OutPort]:
    kind, empty = _REDUCTIONS[ctx.source_op.op_type]
    return _reduce(node, ctx, kind.make, empty=empty)


REDUCTIONS = [
    record
    for name, (kind, _) in _REDUCTIONS.items()
    for record in aliases("tf", [name], _reduction, produces=[kind.op, *_COMPUTED_AXES_OPS])
]


@extractor("tf", "All", produces=[Reduction.ALL.op, Reduction.MIN.op, *_COMPUTED_AXES_OPS])
def _all(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _logical(node, ctx, Reduction.ALL.make, Reduction.MIN.make)


@extractor("tf", "Any", produces=[Reduction.ANY.op, Reduction.MAX.op, *_COMPUTED_AXES_OPS])
def _any(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _logical(node, ctx, Reduction.ANY.make, Reduction.MAX.make)


@extractor("tf", "ArgMax", produces=[TopK, Squeeze])
def _arg_max(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _arg(node, ctx, "max")


@extractor("tf", "ArgMin", produces=[TopK, Squeeze])
def _arg_min(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _arg(node, ctx, "min")
