"""Ragged-tensor TF ops with one ragged dimension, lowered to dense index arithmetic.

A ragged tensor is ``values`` (its rows concatenated) and ``splits`` (row i is
``values[splits[i]:splits[i + 1]]``). Every op here needs, for each value, its row and its
position in that row: the row is the number of ``splits[1:]`` entries at or below the value's
index (Bucketize), the position that index less the row's start. RaggedTensorToVariant and
RaggedTensorFromVariant have no dense form (a variant is an opaque encoding) and are not
converted; neither are ragged tensors of more than one ragged dimension.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Add,
    Broadcast,
    Bucketize,
    Ceiling,
    Concat,
    Convert,
    CumSum,
    Divide,
    Gather,
    Greater,
    Less,
    LogicalAnd,
    LogicalOr,
    Maximum,
    Multiply,
    Range,
    ReduceMax,
    Reshape,
    ScatterNDUpdate,
    Select,
    ShapeOf,
    Slice,
    Subtract,
    Unsqueeze,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.indexing import to_i64

from irconv_tf.dtypes import element_type

I64 = ElementType.i64


def _gather(ctx: ExtractContext, data: OutPort, indices: OutPort, suffix: str) -> OutPort:
    return ctx.op(Gather(batch_dims=0), data, indices, i64(ctx, 0, "axis0"), suffix=suffix)


def _last(ctx: ExtractContext, vector: OutPort, suffix: str) -> OutPort:
    """vector[-1] as a 1-element tensor."""
    return _gather(ctx, vector, i64(ctx, [-1], "last"), suffix)


def _splits_from_lengths(ctx: ExtractContext, lengths: OutPort) -> OutPort:
    """[0, cumsum(lengths)...] (i64)."""
    total = ctx.op(CumSum(), lengths, i64(ctx, 0, "axis0"), suffix="ends")
    return ctx.op(Concat(axis=0), i64(ctx, [0], "zero_start"), total, suffix="splits")


def _rows_and_columns(ctx: ExtractContext, splits: OutPort, count: OutPort) -> tuple[OutPort, OutPort]:
    """For value indices 0..count-1 (``count`` a 1-element i64): their row and column."""
    positions = ctx.op(
        Range(output_type=I64),
        i64(ctx, 0, "zero"),
        ctx.op(Reshape(special_zero=False), count, i64(ctx, [], "scalar")),
        i64(ctx, 1, "one"),
        suffix="positions",
    )
    ends = ctx.op(Slice(), splits, i64(ctx, [1], "one_v"), shape_of(ctx, splits, "splits_count"), i64(ctx, [1], "step"))
    rows = ctx.op(Bucketize(output_type=I64, with_right_bound=False), positions, ends, suffix="rows")
    columns = ctx.op(Subtract(), positions, _gather(ctx, splits, rows, "row_starts"), suffix="columns")
    return rows, columns


def _one_ragged_dimension(ctx: ExtractContext, count: int, what: str) -> None:
    if count != 1:
        raise ConversionError(
            f"{ctx.where()}: {what} {count}: only ragged tensors with one ragged dimension convert "
            "(a dense form of nested ragged dimensions is not implemented)"
        )


# ------------------------------------------------------------------------ RaggedRange
@extractor("tf", "RaggedRange", produces=[Broadcast, CumSum, Bucketize, Gather, Select, Abs, Add, Ceiling, Concat, Convert, Divide, Greater, Less, LogicalAnd, LogicalOr, Maximum, Multiply, Range, Reshape, ShapeOf, Slice, Subtract])
def _ragged_range(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Row i counts from starts[i] towards limits[i] by deltas[i] (scalars apply to every row)."""
    flat = [ctx.op(Reshape(special_zero=False), ctx.input(i), i64(ctx, [-1], "flat")) for i in range(3)]
    counts = [shape_of(ctx, f, f"count{i}") for i, f in enumerate(flat)]
    rows = ctx.op(Maximum(), ctx.op(Maximum(), counts[0], counts[1]), counts[2], suffix="row_count")
    start, limit, delta = (ctx.op(Broadcast(mode="numpy"), f, rows, suffix=n) for f, n in zip(flat, "sld", strict=True))
    span = ctx.op(Subtract(), limit, start, suffix="span")
    zero = const_like(ctx, 0, start, "zero_value")
    if ctx.input_type(0).is_float:
        size = ctx.op(Ceiling(), ctx.op(Abs(), ctx.op(Divide(), span, delta)), suffix="float_size")
    else:
        magnitude = ctx.op(Abs(), delta, suffix="step_size")
        padded = ctx.op(Subtract(), ctx.op(Add(), ctx.op(Abs(), span), magnitude), const_like(ctx, 1, start, "one"))
        size = ctx.op(Divide(), padded, magnitude, suffix="int_size")
    backwards = ctx.op(
        LogicalOr(),
        ctx.op(LogicalAnd(), ctx.op(Greater(), delta, zero), ctx.op(Less(), limit, start)),
        ctx.op(LogicalAnd(), ctx.op(Less(), delta, zero), ctx.op(Greater(), limit, start)),
        suffix="empty_row",
    )
    sizes = to_i64(ctx, ctx.op(Select(), backwards, zero, size, suffix="sizes"), "sizes_i64")
    splits = _splits_from_lengths(ctx, sizes)
    row, column = _rows_and_columns(ctx, splits, _last(ctx, splits, "total"))
    steps = ctx.op(Convert(destination_type=ctx.input_type(0)), column, suffix="steps")
    values = ctx.op(
        Add(),
        _gather(ctx, start, row, "row_start"),
        ctx.op(Multiply(), steps, _gather(ctx, delta, row, "row_delta")),
        suffix="values",
    )
    return [_splits_out(ctx, splits), values]


def _splits_out(ctx: ExtractContext, splits: OutPort) -> OutPort:
    """Splits in the node's ``Tsplits`` type (int64 by default)."""
    wanted = element_type(ctx.attrs.int("Tsplits", 9), ctx.where())
    if wanted is I64:
        return splits
    return ctx.op(Convert(destination_type=wanted), splits, suffix="splits_out")


# ---------------------------------------------------------------- RaggedTensorToTensor
@extractor("tf", "RaggedTensorToTensor", produces=[Bucketize, Broadcast, ScatterNDUpdate, Slice, Add, Concat, Convert, Gather, Less, LogicalAnd, Maximum, Range, ReduceMax, Reshape, Select, ShapeOf, Subtract, Unsqueeze])
def _ragged_to_tensor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """RaggedTensorToTensor(shape, values, default_value, partitions...): row partition
    ROW_SPLITS, or FIRST_DIM_SIZE + VALUE_ROWIDS. Values land at [row, column]; those beyond
    the requested shape are dropped (scattered into an extra row that is cut off)."""
    kinds = ctx.attrs.strs("row_partition_types")
    values, default = ctx.input(1), ctx.input(2)
    count = ctx.op(
        Gather(batch_dims=0), shape_of(ctx, values, "values_shape"), i64(ctx, [0], "first"), i64(ctx, 0, "axis0")
    )
    if kinds == ["ROW_SPLITS"]:
        splits = to_i64(ctx, ctx.input(3), "splits")
        row, column = _rows_and_columns(ctx, splits, count)
        nrows = ctx.op(Subtract(), shape_of(ctx, splits, "splits_count"), i64(ctx, [1], "one_v"), suffix="nrows")
        width = _widest(ctx, _row_lengths(ctx, splits, nrows))
    elif kinds == ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]:
        nrows = ctx.op(Reshape(special_zero=False), to_i64(ctx, ctx.input(3), "first_dim"), i64(ctx, [1], "one_v"))
        row = to_i64(ctx, ctx.input(4), "rows")
        positions = ctx.op(
            Range(output_type=I64),
            i64(ctx, 0, "zero"),
            ctx.op(Reshape(special_zero=False), count, i64(ctx, [], "scalar")),
            i64(ctx, 1, "one"),
        )
        row_start = ctx.op(Bucketize(output_type=I64, with_right_bound=True), row, row, suffix="row_starts")
        column = ctx.op(Subtract(), positions, row_start, suffix="columns")
        width = _widest(ctx, ctx.op(Add(), column, i64(ctx, 1, "one")))
    else:
        raise ConversionError(
            f"{ctx.where()}: row partitions {kinds}: only ['ROW_SPLITS'] and ['FIRST_DIM_SIZE', 'VALUE_ROWIDS'] "
            "(one ragged dimension) convert"
        )
    rows_out, columns_out = _requested(ctx, nrows, width)
    inside = ctx.op(
        LogicalAnd(),
        ctx.op(Less(), row, rows_out, suffix="row_inside"),
        ctx.op(Less(), column, columns_out, suffix="column_inside"),
    )
    spare_row = ctx.op(Select(), inside, row, rows_out, suffix="target_rows")
    spare_column = ctx.op(Select(), inside, column, i64(ctx, 0, "zero"), suffix="target_columns")
    axis = i64(ctx, [1], "axis1")
    targets = ctx.op(Concat(axis=1), ctx.op(Unsqueeze(), spare_row, axis), ctx.op(Unsqueeze(), spare_column, axis))
    value_dims = ctx.op(
        Slice(),
        shape_of(ctx, values, "values_dims"),
        i64(ctx, [1], "one_v"),
        shape_of(ctx, shape_of(ctx, values, "vd"), "values_rank"),
        i64(ctx, [1], "step"),
    )
    room = ctx.op(Maximum(), columns_out, i64(ctx, [1], "one_v"), suffix="room")
    padded_shape = ctx.op(Concat(axis=0), ctx.op(Add(), rows_out, i64(ctx, [1], "one_v")), room, value_dims)
    base = ctx.op(Broadcast(mode="numpy"), default, padded_shape, suffix="defaults")
    filled = ctx.op(ScatterNDUpdate(), base, targets, values, suffix="filled")
    ends = ctx.op(Concat(axis=0), rows_out, columns_out, suffix="ends")
    return [
        ctx.op(Slice(), filled, i64(ctx, [0, 0], "begin"), ends, i64(ctx, [1, 1], "steps"), i64(ctx, [0, 1], "axes"))
    ]


def _requested(ctx: ExtractContext, nrows: OutPort, width: OutPort) -> tuple[OutPort, OutPort]:
    """The output's two leading dims: the ``shape`` input's where given (>= 0), else the
    ragged tensor's own row count and widest row."""
    shape = ctx.input_value(0)
    if shape is None:
        raise ConversionError(f"{ctx.where()}: the output shape (input 0) must be a constant")
    dims = [int(v) for v in np.asarray(shape).reshape(-1)]
    if not dims:  # a scalar -1: no shape requested
        dims = [-1, -1]
    rows = nrows if dims[0] < 0 else i64(ctx, [dims[0]], "rows_requested")
    columns = width if len(dims) < 2 or dims[1] < 0 else i64(ctx, [dims[1]], "columns_requested")
    return rows, columns


def _row_lengths(ctx: ExtractContext, splits: OutPort, nrows: OutPort) -> OutPort:
    """splits[1:] - splits[:-1]."""
    step = i64(ctx, [1], "step")
    ends = ctx.op(Slice(), splits, i64(ctx, [1], "one_v"), shape_of(ctx, splits, "splits_count"), step, suffix="ends")
    starts = ctx.op(Slice(), splits, i64(ctx, [0], "zero_v"), nrows, step, suffix="starts")
    return ctx.op(Subtract(), ends, starts, suffix="row_lengths")


def _widest(ctx: ExtractContext, lengths: OutPort) -> OutPort:
    """max(lengths) as a 1-element tensor, 0 for no rows."""
    padded = ctx.op(Concat(axis=0), lengths, i64(ctx, [0], "no_rows"), suffix="lengths_or_zero")
    return ctx.op(ReduceMax(keep_dims=True), padded, i64(ctx, [0], "axis0_v"), suffix="widest")


# ----------------------------------------------------------------- RaggedTensorToSparse
@extractor("tf", "RaggedTensorToSparse", produces=[Bucketize, Concat, ReduceMax, Convert, Gather, Range, Reshape, ShapeOf, Slice, Subtract, Unsqueeze])
def _ragged_to_sparse(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(indices [V, 2] = (row, column) of each value, the values, dense shape [rows, widest])."""
    _one_ragged_dimension(ctx, ctx.attrs.int("RAGGED_RANK"), "RAGGED_RANK")
    if ctx.input_rank(1) != 1:
        raise ConversionError(f"{ctx.where()}: only 1-D values convert (their rank is {ctx.input_rank(1)})")
    splits = to_i64(ctx, ctx.input(0), "splits")
    count = shape_of(ctx, ctx.input(1), "count")
    row, column = _rows_and_columns(ctx, splits, count)
    axis = i64(ctx, [1], "axis1")
    indices = ctx.op(
        Concat(axis=1), ctx.op(Unsqueeze(), row, axis), ctx.op(Unsqueeze(), column, axis), suffix="indices"
    )
    nrows = ctx.op(Subtract(), shape_of(ctx, splits, "splits_count"), i64(ctx, [1], "one_v"), suffix="nrows")
    shape = ctx.op(Concat(axis=0), nrows, _widest(ctx, _row_lengths(ctx, splits, nrows)), suffix="dense_shape")
    return [indices, ctx.input(1), shape]


# ------------------------------------------------------------------------ RaggedGather
@extractor("tf", "RaggedGather", produces=[Gather, CumSum, Bucketize, Add, Concat, Convert, Range, Reshape, ShapeOf, Slice, Subtract])
def _ragged_gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Rows ``indices`` of the ragged params: their lengths make the new splits, and each
    output value reads params' value at its row's start plus its column."""
    _one_ragged_dimension(ctx, ctx.attrs.int("PARAMS_RAGGED_RANK"), "PARAMS_RAGGED_RANK")
    _one_ragged_dimension(ctx, ctx.attrs.int("OUTPUT_RAGGED_RANK"), "OUTPUT_RAGGED_RANK")
    splits = to_i64(ctx, ctx.input(0), "params_splits")
    picked = to_i64(ctx, ctx.input(2), "indices")
    starts = _gather(ctx, splits, picked, "starts")
    ends = _gather(ctx, splits, ctx.op(Add(), picked, i64(ctx, 1, "one")), "ends")
    out_splits = _splits_from_lengths(ctx, ctx.op(Subtract(), ends, starts, suffix="lengths"))
    row, column = _rows_and_columns(ctx, out_splits, _last(ctx, out_splits, "total"))
    source = ctx.op(Add(), _gather(ctx, starts, row, "source_start"), column, suffix="source")
    return [_splits_out(ctx, out_splits), _gather(ctx, ctx.input(1), source, "values")]


