"""TensorFlow element-wise compositions and small shape ops."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Bucketize,
    Concat,
    Convert,
    Divide,
    Equal,
    Gather,
    Log,
    Maximum,
    Multiply,
    Range,
    ReduceMean,
    Reverse,
    ScatterElementsUpdate,
    Select,
    ShapeOf,
    Subtract,
    Unsqueeze,
)

from irconv_tf.dtypes import element_type, numpy_dtype
from irconv_tf.extractors._base import int_const, table

# TF DataType enum values used below.
_DT_FLOAT, _DT_INT32 = 1, 3


def _typed(ctx: ExtractContext, value: float, attr: str = "T", suffix: str = "const") -> OutPort:
    """A scalar constant of the element type named by the node's ``attr`` (e.g. ``T``)."""
    dtype = numpy_dtype(ctx.attr(attr, _DT_FLOAT), ctx.node.name)
    return ctx.const(np.array(value, dtype=dtype), suffix=suffix)


# ---------------------------------------------------------------- x * f(y), 0 where x == 0
def _zero_where_x_is_zero(combine: Callable[[ExtractContext, OutPort, OutPort], OutPort]):  # type: ignore[no-untyped-def]
    """``combine(x, y)`` element-wise, but exactly 0 wherever x == 0 (whatever y is: 0, inf, NaN)."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        x, y = ctx.input(0), ctx.input(1)
        zero = _typed(ctx, 0.0, suffix="zero")
        x_is_zero = ctx.op(Equal(), x, zero, suffix="x_is_zero")
        value = combine(ctx, x, y)
        return [ctx.op(Select(auto_broadcast="numpy"), x_is_zero, zero, value)]

    return extract


def _x_log_y(ctx: ExtractContext, x: OutPort, y: OutPort) -> OutPort:
    return ctx.op(Multiply(), x, ctx.op(Log(), y, suffix="log_y"), suffix="product")


def _x_log1p_y(ctx: ExtractContext, x: OutPort, y: OutPort) -> OutPort:
    one_plus_y = ctx.op(Add(), y, _typed(ctx, 1.0, suffix="one"), suffix="one_plus_y")
    return ctx.op(Multiply(), x, ctx.op(Log(), one_plus_y, suffix="log1p_y"), suffix="product")


def _x_div_y(ctx: ExtractContext, x: OutPort, y: OutPort) -> OutPort:
    return ctx.op(Divide(m_pythondiv=False), x, y, suffix="quotient")


# ---------------------------------------------------------------- sequences and shapes
def _scalar(ctx: ExtractContext, port: OutPort, suffix: str) -> OutPort:
    """A one-element tensor (or a scalar) as a scalar."""
    from irconv_opset import Reshape

    return ctx.op(Reshape(special_zero=False), port, int_const(ctx, np.zeros(0, np.int64), "scalar"), suffix=suffix)


def _lin_space(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """LinSpace(start, stop, num): start + i * (stop - start) / (num - 1) for i < num - 1, then
    exactly ``stop`` last (TF's kernel); a single value is ``start``. ``num`` may be computed."""
    dtype_attr = ctx.attr("T", _DT_FLOAT)
    out = element_type(dtype_attr, node.name)
    i64 = ElementType.i64
    start = _scalar(ctx, ctx.input(0), "start")
    stop = _scalar(ctx, ctx.input(1), "stop")
    num = ctx.op(Convert(destination_type=i64), _scalar(ctx, ctx.input(2), "num_scalar"), suffix="num")
    positions = ctx.op(Range(output_type=i64), int_const(ctx, 0, "zero"), num, int_const(ctx, 1, "one"), suffix="i")
    # the divisor num - 1, at least 1 (num == 1 gives [start])
    last = ctx.op(Maximum(), ctx.op(Subtract(), num, int_const(ctx, 1, "one_less")), int_const(ctx, 1, "at_least"))
    is_last = ctx.op(Equal(), positions, last, suffix="is_last")
    index = ctx.op(Convert(destination_type=out), positions, suffix="index")
    divisor = ctx.op(Convert(destination_type=out), last, suffix="divisor")
    step = ctx.op(Divide(m_pythondiv=False), ctx.op(Subtract(), stop, start, suffix="span"), divisor, suffix="step")
    values = ctx.op(Add(), start, ctx.op(Multiply(), index, step, suffix="offsets"), suffix="values")
    return [ctx.op(Select(auto_broadcast="numpy"), is_last, stop, values)]


def _invert_permutation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """y[x[i]] = i: scatter the positions 0..n-1 to the indices x (every slot is written once)."""
    out = element_type(ctx.attr("T", _DT_INT32), node.name)
    x = ctx.input(0)
    size = _scalar(ctx, ctx.op(ShapeOf(output_type=out), x, suffix="length"), "size")
    positions = ctx.op(
        Range(output_type=out), _typed(ctx, 0, suffix="zero"), size, _typed(ctx, 1, suffix="one"), suffix="positions"
    )
    return [ctx.op(ScatterElementsUpdate(reduction="none"), x, x, positions, int_const(ctx, 0, "axis"))]


def _broadcast_args(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The broadcast of two shape vectors: both left-padded with 1s to the longer length, then
    per position the other dim where one is 1 (so a 0 against a 1 gives 0, as in TF)."""
    out = element_type(ctx.attr("T", _DT_INT32), node.name)
    s0, s1 = ctx.input(0), ctx.input(1)
    one = _typed(ctx, 1, suffix="one")
    len0 = ctx.op(ShapeOf(output_type=ElementType.i64), s0, suffix="len0")
    len1 = ctx.op(ShapeOf(output_type=ElementType.i64), s1, suffix="len1")
    zero = int_const(ctx, 0, "zero")

    def padded(shape: OutPort, own: OutPort, other: OutPort, tag: str) -> OutPort:
        missing = ctx.op(Maximum(), ctx.op(Subtract(), other, own, suffix=f"diff{tag}"), zero, suffix=f"missing{tag}")
        ones = ctx.op(Broadcast(mode="numpy"), one, missing, suffix=f"ones{tag}")
        converted = ctx.op(Convert(destination_type=out), shape, suffix=f"shape{tag}")
        return ctx.op(Concat(axis=0), ones, converted, suffix=f"padded{tag}")

    a, b = padded(s0, len0, len1, "0"), padded(s1, len1, len0, "1")
    a_is_one = ctx.op(Equal(), a, one, suffix="s0_is_one")
    return [ctx.op(Select(auto_broadcast="numpy"), a_is_one, b, a)]


def _shape_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    out = element_type(ctx.attr("out_type", _DT_INT32), node.name)
    return [ctx.op(ShapeOf(output_type=out), ctx.input(i), suffix=f"shape{i}") for i in range(len(ctx.inputs))]


def _identity_first(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


# ---------------------------------------------------------------- bucketing and reversal
def _bucketize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TF's bucket is the count of boundaries <= x (intervals [b[i-1], b[i])), as int32.

    TF compares x with the float32 boundaries: integers are compared as floats, doubles with
    the boundaries widened, which is what converting does here.
    """
    dtype = numpy_dtype(ctx.attr("T", _DT_FLOAT), node.name)
    boundaries = np.asarray(ctx.attr("boundaries", []) or [], dtype=np.float32)
    x = ctx.input(0)
    if boundaries.size == 0:
        shape = ctx.op(ShapeOf(output_type=ElementType.i64), x, suffix="shape")
        return [ctx.op(Broadcast(mode="numpy"), ctx.const(np.array(0, np.int32), suffix="zero"), shape)]
    if np.issubdtype(dtype, np.floating):
        bounds = ctx.const(boundaries.astype(dtype), suffix="boundaries")
    else:
        x = ctx.op(Convert(destination_type=ElementType.f32), x, suffix="as_float")
        bounds = ctx.const(boundaries, suffix="boundaries")
    return [ctx.op(Bucketize(output_type=ElementType.i32, with_right_bound=False), x, bounds)]


def _reverse(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Reverse (v1): a bool per dimension; a constant mask becomes the axis list."""
    mask = ctx.input_value(1)
    if mask is None:
        return [ctx.op(Reverse(mode="mask"), ctx.input(0), ctx.input(1))]
    axes = np.flatnonzero(np.reshape(mask, [-1]).astype(bool))
    if axes.size == 0:
        return [ctx.input(0)]
    return [ctx.op(Reverse(mode="index"), ctx.input(0), int_const(ctx, axes, "axes"))]


def _matrix_diag(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """[..., N] -> [..., N, N]: the diagonal where row == column, 0 elsewhere (Select, so an
    inf or NaN on the diagonal does not leak into the rest of its row)."""
    i64 = ElementType.i64
    x = ctx.input(0)
    dims = ctx.op(ShapeOf(output_type=i64), x, suffix="dims")
    n = ctx.op(Gather(batch_dims=0), dims, int_const(ctx, -1, "last"), int_const(ctx, 0, "axis"), suffix="n")
    positions = ctx.op(Range(output_type=i64), int_const(ctx, 0, "zero"), n, int_const(ctx, 1, "one"), suffix="pos")
    rows = ctx.op(Unsqueeze(), positions, int_const(ctx, [1], "column_axis"), suffix="rows")
    on_diagonal = ctx.op(Equal(), rows, positions, suffix="on_diagonal")
    column = ctx.op(Unsqueeze(), x, int_const(ctx, [-1], "last_axis"), suffix="column")
    return [ctx.op(Select(auto_broadcast="numpy"), on_diagonal, column, _typed(ctx, 0, suffix="zero_value"))]


def _adjust_contrast_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(x - mean) * factor + mean, the mean over the H and W axes of [..., H, W, C] per channel;
    computed in float32 (TF converts half images first) and converted back."""
    out = element_type(ctx.attr("T", _DT_FLOAT), node.name)
    f32 = ElementType.f32
    x = ctx.input(0)
    if out != f32:
        x = ctx.op(Convert(destination_type=f32), x, suffix="as_float")
    factor = ctx.input(1)
    if ctx.input_type(1) != f32:
        factor = ctx.op(Convert(destination_type=f32), factor, suffix="factor")
    mean = ctx.op(ReduceMean(keep_dims=True), x, int_const(ctx, [-3, -2], "spatial_axes"), suffix="mean")
    centred = ctx.op(Subtract(), x, mean, suffix="centred")
    result = ctx.op(Add(), ctx.op(Multiply(), centred, factor, suffix="scaled"), mean, suffix="adjusted")
    if out != f32:
        result = ctx.op(Convert(destination_type=out), result, suffix="result")
    return [result]


def extractors() -> list[Extractor]:
    return table(
        {
            "Xlogy": (_zero_where_x_is_zero(_x_log_y), "Equal, Log, Multiply, Select"),
            "Xlog1py": (_zero_where_x_is_zero(_x_log1p_y), "Equal, Add, Log, Multiply, Select"),
            "Xdivy": (_zero_where_x_is_zero(_x_div_y), "Equal, Divide, Select"),
            "LinSpace": (_lin_space, "Range, Convert, Subtract, Divide, Multiply, Add, Select"),
            "InvertPermutation": (_invert_permutation, "ShapeOf, Range, ScatterElementsUpdate"),
            "BroadcastArgs": (_broadcast_args, "ShapeOf, Broadcast, Concat, Equal, Select"),
            "ShapeN": (_shape_n, "ShapeOf"),
            "CheckNumericsV2": (_identity_first, "-"),
            "Bucketize": (_bucketize, "Bucketize"),
            "Reverse": (_reverse, "Reverse"),
            "MatrixDiag": (_matrix_diag, "ShapeOf, Range, Equal, Unsqueeze, Select"),
            "AdjustContrastv2": (_adjust_contrast_v2, "ReduceMean, Subtract, Multiply, Add"),
        }
    )
