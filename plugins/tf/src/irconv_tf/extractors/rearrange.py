"""Rearranging TF ops: Roll, ReverseV2, ReverseSequence, MatrixBandPart, Cumprod."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64, input_scalar
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Broadcast,
    Concat,
    Convert,
    Gather,
    Less,
    LessEqual,
    LogicalAnd,
    LogicalOr,
    Multiply,
    Range,
    Reshape,
    Reverse,
    ReverseSequence,
    Roll,
    Select,
    ShapeOf,
    Split,
    Subtract,
)

from irconv_tf.dtypes import numpy_dtype
from irconv_tf.extractors._base import on_inputs

#: Cumprod is unrolled into one Multiply per position; longer axes are refused.
CUMPROD_MAX_LENGTH = 1024


def _i64(ctx: ExtractContext, idx: int, suffix: str) -> OutPort:
    return ctx.op(Convert(destination_type=ElementType.i64), ctx.input(idx), suffix=suffix)


@extractor("tf", "Roll", produces=[Roll])
def _roll(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Roll(x, shift, axis): shift and axis scalars or lists, constant or computed."""
    return on_inputs(ctx, Roll())


@extractor("tf", "ReverseV2", produces=[Reverse, Convert])
def _reverse_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """An empty constant axis list reverses nothing: the input itself (OpenVINO's shape
    inference refuses a Reverse whose axes constant holds no data)."""
    axes = ctx.input_value(1)
    if axes is not None and axes.size == 0:
        return [ctx.input(0)]
    return [ctx.op(Reverse(mode="index"), ctx.input(0), _i64(ctx, 1, "axes"))]


@extractor("tf", "ReverseSequence", produces=[ReverseSequence, Convert])
def _reverse_sequence(node: Node, ctx: ExtractContext) -> list[OutPort]:
    op = ReverseSequence(batch_axis=ctx.attrs.int("batch_dim", 0), seq_axis=ctx.attrs.int("seq_dim"))
    return [ctx.op(op, ctx.input(0), _i64(ctx, 1, "seq_lengths"))]


@extractor("tf", "MatrixBandPart", produces=[Range, Subtract, Select, Convert, Gather, Less, LessEqual, LogicalAnd, LogicalOr, Reshape, ShapeOf])
def _matrix_band_part(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Keep x[..., m, n] where (lower < 0 or m - n <= lower) and (upper < 0 or n - m <= upper)."""
    shape = ctx.op(ShapeOf(output_type=ElementType.i64), ctx.input(0), suffix="shape")
    one, zero = i64(ctx, 1, "one"), i64(ctx, 0, "zero")

    def dim(position: int) -> OutPort:
        return ctx.op(Gather(batch_dims=0), shape, i64(ctx, position, f"dim{position}"), zero, suffix=f"size{position}")

    rows = ctx.op(Range(output_type=ElementType.i64), zero, dim(-2), one, suffix="rows")
    cols = ctx.op(Range(output_type=ElementType.i64), zero, dim(-1), one, suffix="cols")
    rows = ctx.op(Reshape(special_zero=False), rows, i64(ctx, [-1, 1], "column"), suffix="row_index")
    below = ctx.op(Subtract(), rows, cols, suffix="m_minus_n")  # [M, N]
    above = ctx.op(Subtract(), cols, rows, suffix="n_minus_m")

    def within(band: OutPort, distance: OutPort, suffix: str) -> OutPort:
        whole = ctx.op(Less(), band, zero, suffix=f"{suffix}_whole")
        return ctx.op(LogicalOr(), whole, ctx.op(LessEqual(), distance, band), suffix=suffix)

    lower, upper = _i64(ctx, 1, "num_lower"), _i64(ctx, 2, "num_upper")
    keep = ctx.op(LogicalAnd(), within(lower, below, "lower"), within(upper, above, "upper"), suffix="band")
    dtype = numpy_dtype(ctx.attrs.int("T", 1), ctx.where())
    return [ctx.op(Select(), keep, ctx.input(0), ctx.const(np.zeros((), dtype), suffix="zero_value"))]


@extractor("tf", "Cumprod", produces=[Split, Multiply, Concat, Broadcast, ShapeOf])
def _cumprod(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Cumprod(x, axis) unrolled: a running Multiply over the slices along a static axis
    (``exclusive`` starts from ones, ``reverse`` runs from the end)."""
    axis = int(input_scalar(ctx, 1, "axis"))
    shape = ctx.input_shape(0)
    length = None if shape is None or not -len(shape) <= axis < len(shape) else shape[axis]
    if length is None:
        raise ConversionError(f"{ctx.where()}: Cumprod needs a static length along axis {axis}")
    if length > CUMPROD_MAX_LENGTH:
        raise ConversionError(
            f"{ctx.where()}: Cumprod over {length} > {CUMPROD_MAX_LENGTH} items is not supported"
        )
    if length == 0:
        return [ctx.input(0)]
    split = ctx.add(Split(num_splits=length), [ctx.input(0), i64(ctx, axis, "axis")], suffix="items")
    items = [split.out_port(i) for i in range(length)]
    order = list(range(length))[::-1] if ctx.attrs.bool("reverse", False) else list(range(length))
    dtype = numpy_dtype(ctx.attrs.int("T", 1), ctx.where())
    running = ctx.op(
        Broadcast(),
        ctx.const(np.ones((), dtype), suffix="one"),
        ctx.op(ShapeOf(), items[0], suffix="item_shape"),
        suffix="ones",
    )
    exclusive = ctx.attrs.bool("exclusive", False)
    results: dict[int, OutPort] = {}
    for step, index in enumerate(order):
        if exclusive:
            results[index] = running
        running = items[index] if step == 0 else ctx.op(Multiply(), running, items[index], suffix=f"product{step}")
        if not exclusive:
            results[index] = running
    return [ctx.op(Concat(axis=axis), *[results[i] for i in range(length)])]


