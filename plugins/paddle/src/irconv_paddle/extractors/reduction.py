"""Reductions, variance, vector norms, arg-max/min, top-k and cumulative sums."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, const_like, i64, normalize_axes, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Convert,
    CumSum,
    Gather,
    Multiply,
    NotEqual,
    Power,
    Reshape,
    ShapeOf,
    Squeeze,
    Subtract,
    TopK,
    Unique,
)
from irconv_opset.build import all_axes, dims_of
from irconv_opset.lowering.reduction import REDUCTION_OPS, Reduction, reduce

from irconv_paddle.extractors._common import arg, known, known_int, known_ints, x
from irconv_paddle.names import PIR_DIALECT, both, plain_type

#: Legacy ``reduce_*`` (``dim``, ``keep_dim``, ``reduce_all``) and PIR names (axis operand or
#: attribute, ``keepdim``) -> what they compute.
_REDUCTIONS = {"reduce_sum": Reduction.SUM, "reduce_mean": Reduction.MEAN, "reduce_max": Reduction.MAX,
               "reduce_min": Reduction.MIN, "reduce_prod": Reduction.PROD, "reduce_all": Reduction.ALL,
               "reduce_any": Reduction.ANY, "sum": Reduction.SUM, "mean": Reduction.MEAN, "max": Reduction.MAX,
               "min": Reduction.MIN, "prod": Reduction.PROD, "all": Reduction.ALL, "any": Reduction.ANY,
               "amax": Reduction.MAX, "amin": Reduction.MIN}


def extract_reduce(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Over the listed axes (all of them when none is listed or ``reduce_all``)."""
    data = x(ctx)
    rank = require_rank(ctx)
    axes = known_ints(ctx, "dim", 1, []) if "dim" in ctx.attrs or arg(ctx, 1) is not None else \
        known_ints(ctx, "axis", None, [])
    keep = ctx.attrs.bool("keep_dim", ctx.attrs.bool("keepdim", False))
    every = ctx.attrs.bool("reduce_all", False) or not axes or len(axes) == rank
    axes_port = all_axes(ctx, data) if every else i64(ctx, normalize_axes(ctx, axes, rank), "axes")
    return [reduce(ctx, _REDUCTIONS[plain_type(ctx)], data, axes_port, keep)]


REDUCE = aliases("paddle", [n if n.startswith("reduce_") else PIR_DIALECT + n for n in _REDUCTIONS], extract_reduce,
                 produces=REDUCTION_OPS)


def extract_variance(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``variance``: the population variance (the mean squared deviation from the mean) over
    ``axis`` (every axis when empty), the reduced axes kept when ``keepdim``."""
    data = x(ctx)
    rank = require_rank(ctx)
    axes = ctx.attrs.ints("axis", [])
    axes_port = all_axes(ctx, data) if not axes else i64(ctx, normalize_axes(ctx, axes, rank), "axes")
    mean = reduce(ctx, Reduction.MEAN, data, axes_port, True, suffix="mean")
    centred = ctx.op(Subtract(), data, mean, suffix="centred")
    squares = ctx.op(Multiply(), centred, centred, suffix="squares")
    return [reduce(ctx, Reduction.MEAN, squares, axes_port, ctx.attrs.bool("keepdim", False))]


VARIANCE = aliases("paddle", ["variance"], extract_variance, produces=[Reduction.MEAN.op, Subtract, Multiply])


def extract_p_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``p_norm``: the ``porder``-norm along ``axis`` (of the flattened tensor when ``asvector``):
    (sum |x|^p)^(1/p); the largest (smallest) |x| for p = inf (-inf); the non-zero count for p = 0."""
    data = x(ctx)
    keep = ctx.attrs.bool("keepdim", False)
    if ctx.attrs.bool("asvector", False):
        axes_port = all_axes(ctx, data)
    else:
        axes_port = i64(ctx, [normalize_axis(ctx, ctx.attrs.int("axis", -1), require_rank(ctx))], "axes")
    order = ctx.attrs.float("porder", 2.0)
    if order == 2.0:
        return [reduce(ctx, Reduction.L2, data, axes_port, keep)]
    if order == 1.0:
        return [reduce(ctx, Reduction.L1, data, axes_port, keep)]
    magnitude = ctx.op(Abs(), data, suffix="abs")
    if order in (float("inf"), float("-inf")):
        return [reduce(ctx, Reduction.MAX if order > 0 else Reduction.MIN, magnitude, axes_port, keep)]
    if order == 0.0:
        nonzero = ctx.op(NotEqual(), data, const_like(ctx, 0.0, data, "zero"), suffix="nonzero")
        counted = ctx.op(Convert(destination_type=data.data.element_type), nonzero, suffix="counted")
        return [reduce(ctx, Reduction.SUM, counted, axes_port, keep)]
    powered = ctx.op(Power(), magnitude, const_like(ctx, order, data, "order"), suffix="powered")
    total = reduce(ctx, Reduction.SUM, powered, axes_port, keep, suffix="total")
    return [ctx.op(Power(), total, const_like(ctx, 1.0 / order, data, "inverse_order"))]


P_NORM = aliases("paddle", both("p_norm"), extract_p_norm,
                 produces=[Reduction.L2.op, Reduction.L1.op, Reduction.MAX.op, Reduction.MIN.op, Reduction.SUM.op, Abs,
                           NotEqual, Convert, Power])


def extract_arg_extreme(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Index of the max (min) along ``axis`` (the flattened tensor when ``flatten``), of ``dtype``."""
    data = x(ctx)
    if ctx.attrs.bool("flatten", False):
        data = ctx.op(Reshape(special_zero=False), data, i64(ctx, [-1], "flat"), suffix="flat")
        axis, rank = 0, 1
    else:
        rank = require_rank(ctx)
        axis = normalize_axis(ctx, known_int(ctx, "axis", 1, -1), rank)
    mode = "max" if "max" in plain_type(ctx) else "min"
    top = ctx.add(TopK(axis=axis, mode=mode, sort="none", index_element_type=ElementType.i64),
                  [data, i64(ctx, 1, "k")], suffix="topk")
    out = top.out_port(1)
    if not ctx.attrs.bool("keepdims", False):
        out = ctx.op(Squeeze(), out, i64(ctx, [axis], "axis"), suffix="squeeze")
    dtype = ctx.attrs.get("dtype", "int64")
    if dtype in (2, "int32"):
        out = ctx.op(Convert(destination_type=ElementType.i32), out, suffix="convert")
    return [out]


ARG_EXTREME = aliases("paddle", ["arg_max", "arg_min", "pd_op.argmax", "pd_op.argmin"], extract_arg_extreme,
                      produces=[TopK, Squeeze, Convert, Reshape])


def extract_top_k(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The ``k`` largest (smallest unless ``largest``) along ``axis``: values and int64 indices."""
    rank = require_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), rank)
    k = known_int(ctx, "k", 1, 1)
    op = TopK(axis=axis, mode="max" if ctx.attrs.bool("largest", True) else "min",
              sort="value" if ctx.attrs.bool("sorted", True) else "none", index_element_type=ElementType.i64,
              stable=True)
    top = ctx.add(op, [x(ctx), i64(ctx, k, "k")])
    return [top.out_port(0), top.out_port(1)]


TOP_K = aliases("paddle", ["top_k_v2", "pd_op.topk"], extract_top_k, produces=[TopK])


def extract_argsort(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The values sorted along ``axis`` (ascending unless ``descending``; ties keep their
    order) and their int64 indices."""
    data = x(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), require_rank(ctx))
    op = TopK(axis=axis, mode="max" if ctx.attrs.bool("descending", False) else "min", sort="value",
              index_element_type=ElementType.i64, stable=True)
    top = ctx.add(op, [data, dims_of(ctx, data, axis, "count")])
    return [top.out_port(0), top.out_port(1)]


ARGSORT = aliases("paddle", both("argsort"), extract_argsort, produces=[TopK, Gather, ShapeOf])


def extract_cumsum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    if ctx.attrs.bool("flatten", False) or known(ctx, "axis", 1, -1) is None:
        data = ctx.op(Reshape(special_zero=False), data, i64(ctx, [-1], "flat"), suffix="flat")
        axis = 0
    else:
        axis = known_int(ctx, "axis", 1, -1)
    op = CumSum(exclusive=ctx.attrs.bool("exclusive", False), reverse=ctx.attrs.bool("reverse", False))
    return [ctx.op(op, data, i64(ctx, axis, "axis"))]


CUMSUM = aliases("paddle", ["cumsum", "pd_op.cumsum"], extract_cumsum, produces=[CumSum, Reshape])


def extract_unique(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The sorted distinct values of the flattened input, then as Paddle asks: the index of
    each one's first occurrence, the index of each input element's value, the counts."""
    if ctx.attrs.ints("axis", []):
        raise ctx.attrs.bad("axis", ctx.attrs.ints("axis"), "unique along an axis is not converted")
    data = ctx.op(Reshape(special_zero=False), x(ctx), i64(ctx, [-1], "flat"), suffix="flat")
    name = ctx.attrs.get("dtype", "int64")
    index_type = ElementType.i32 if name in (2, "int32") else ElementType.i64
    found = ctx.add(Unique(sorted=True, index_element_type=index_type, count_element_type=index_type), [data])
    return [found.out_port(i) for i in range(node.num_outputs())]


UNIQUE = aliases("paddle", both("unique"), extract_unique, produces=[Unique, Reshape])
