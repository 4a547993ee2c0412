"""TensorFlow scatter, segment, unique and stitch ops."""

from __future__ import annotations

import math

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, extractor, i64, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Divide,
    Equal,
    FloorMod,
    Gather,
    Less,
    Maximum,
    NonZero,
    Range,
    ReduceProd,
    Reshape,
    ScatterNDUpdate,
    Select,
    ShapeOf,
    Slice,
    Sqrt,
    Squeeze,
    Unique,
    Unsqueeze,
)
from irconv_opset.lowering import indexing as lowering
from irconv_opset.lowering.indexing import to_i64
from irconv_opset.lowering.reduction import Reduction

from irconv_tf.dtypes import element_type, numpy_dtype

I64 = ElementType.i64


# ------------------------------------------------------------------------ helpers
def _as_vector(ctx: ExtractContext, port: OutPort, suffix: str) -> OutPort:
    """A scalar (or one-element) i64 tensor as shape [1], for Concat into a shape."""
    flat = ctx.op(Reshape(special_zero=False), port, i64(ctx, [1], "one_element"), suffix=f"{suffix}_vector")
    return to_i64(ctx, flat, suffix)


def _data_dtype(ctx: ExtractContext, node: Node, name: str = "T") -> np.dtype:
    return numpy_dtype(ctx.attrs.int(name, 1), ctx.where())


def _filled(ctx: ExtractContext, value: OutPort, shape: OutPort, suffix: str) -> OutPort:
    return ctx.op(Broadcast(mode="numpy"), value, shape, suffix=suffix)


def _zero(ctx: ExtractContext, dtype: np.dtype) -> OutPort:
    return ctx.const(np.zeros((), dtype), suffix="zero")


def _trailing_dims(ctx: ExtractContext, data: OutPort, lead: OutPort, suffix: str) -> OutPort:
    """``shape(data)[rank(lead):]``: the dims of data after those its index tensor ``lead`` covers."""
    dims = ctx.op(ShapeOf(output_type=I64), data, suffix=f"{suffix}_dims")
    rank = ctx.op(ShapeOf(output_type=I64), dims, suffix=f"{suffix}_rank")
    lead_rank = lead.data.shape
    if lead_rank is not None:
        start = i64(ctx, [len(lead_rank)], f"{suffix}_start")
    else:
        start = ctx.op(ShapeOf(output_type=I64), ctx.op(ShapeOf(output_type=I64), lead), suffix=f"{suffix}_start")
    return ctx.op(Slice(), dims, start, rank, i64(ctx, [1], "step"), suffix=suffix)


def _segment_sum(
    ctx: ExtractContext, dtype: np.dtype, data: OutPort, ids: OutPort, count: OutPort, drop_negative: bool
) -> OutPort:
    """Rows of ``data`` summed into ``count`` segments (see ``_segment_reduce``)."""
    return _segment_reduce(ctx, dtype, data, ids, count, drop_negative, "sum")


def _segment_reduce(
    ctx: ExtractContext,
    dtype: np.dtype,
    data: OutPort,
    ids: OutPort,
    count: OutPort,
    drop_negative: bool,
    reduction: str,
    initial: OutPort | None = None,
) -> OutPort:
    """Rows of ``data`` reduced (``reduction``: sum, prod, min, max) into ``count`` (i64 [1])
    segments by ``ids`` (any rank, a prefix of data's shape); the output is
    ``[count] + shape(data)[rank(ids):]``, ``initial`` (default 0) where a segment is empty.

    ``drop_negative``: negative ids are ignored (unsorted segment ops) by sending them to an
    extra row that is sliced off afterwards.
    """
    ids = to_i64(ctx, ids, "ids")
    rows = count
    if drop_negative:
        count_scalar = ctx.op(Squeeze(), count, i64(ctx, [0], "axis0"), suffix="count_scalar")
        negative = ctx.op(Less(), ids, i64(ctx, 0, "zero_id"), suffix="negative_ids")
        ids = ctx.op(Select(), negative, count_scalar, ids, suffix="kept_ids")
        rows = ctx.op(Add(), count, i64(ctx, [1], "one"), suffix="rows_with_dropped")
    tail = _trailing_dims(ctx, data, ids, "row_dims")
    shape = ctx.op(Concat(axis=0), rows, tail, suffix="out_shape")
    start = _filled(ctx, initial if initial is not None else _zero(ctx, dtype), shape, "initial")
    indices = ctx.op(Unsqueeze(), ids, i64(ctx, [-1], "last_axis"), suffix="indices")
    reduced = ctx.op(ScatterNDUpdate(reduction=reduction), start, indices, data, suffix="ScatterNDUpdate")
    if not drop_negative:
        return reduced
    return ctx.op(Slice(), reduced, i64(ctx, [0], "begin"), count, i64(ctx, [1], "step"), suffix="kept")


def _identity_element(ctx: ExtractContext, dtype: np.dtype, reduction: str) -> OutPort:
    """What a reduction starts from: 1 for prod, the lowest value for max, the highest for min
    (for floats the lowest/highest finite value, as TensorFlow)."""
    if reduction == "prod":
        value: object = 1
    else:  # TF's lowest() / highest(): finite for floats
        info = np.finfo(dtype) if np.issubdtype(dtype, np.floating) else np.iinfo(dtype)
        value = info.min if reduction == "max" else info.max
    return ctx.const(np.array(value, dtype), suffix=f"{reduction}_identity")


def _segment_family(node: Node, ctx: ExtractContext, reduction: str, source: str) -> list[OutPort]:
    """Segment*, UnsortedSegment* and SparseSegment*(WithNumSegments) for ``reduction``
    (sum, prod, min, max, mean, sqrt_n). ``source``: "sorted" (ids sorted, count = max + 1,
    an empty segment gives 0), "unsorted" (num_segments given, negative ids dropped, an empty
    segment gives the reduction's identity: 1, the lowest or the highest value) or "sparse"
    (rows gathered by ``indices``; num_segments given when the op has four inputs)."""
    scatter = {"mean": "sum", "sqrt_n": "sum"}.get(reduction, reduction)
    dtype = _data_dtype(ctx, node)
    data, ids_idx = ctx.input(0), 1
    if source == "sparse":
        data = ctx.op(Gather(batch_dims=0), data, ctx.input(1), i64(ctx, 0, "axis"), suffix="rows")
        ids_idx = 2
    ids = ctx.input(ids_idx)
    given = source == "unsorted" or (source == "sparse" and len(ctx.inputs) > 3)
    count = (
        _as_vector(ctx, ctx.input(ids_idx + 1), "num_segments")
        if given
        else lowering.segment_count(ctx, ids, "num_segments")
    )
    unsorted = source == "unsorted"
    initial = _identity_element(ctx, dtype, scatter) if scatter != "sum" else None
    reduced = _segment_reduce(ctx, dtype, data, ids, count, unsorted, scatter, initial)
    if scatter == "sum" and reduction == "sum":
        return [reduced]
    ones = _filled(ctx, ctx.const(np.ones((), dtype), suffix="one"), ctx.op(ShapeOf(output_type=I64), data), "ones")
    members = _segment_reduce(ctx, dtype, ones, ids, count, unsorted, "sum")
    empty = ctx.op(Equal(), members, _zero(ctx, dtype), suffix="empty_segment")
    if reduction == "mean":
        divisor = ctx.op(Maximum(), members, ctx.const(np.ones((), dtype), suffix="at_least_one"))
        return [ctx.op(Divide(m_pythondiv=False), reduced, divisor, suffix="mean")]
    if reduction == "sqrt_n":
        divisor = ctx.op(Sqrt(), ctx.op(Maximum(), members, ctx.const(np.ones((), dtype), suffix="at_least_one")))
        return [ctx.op(Divide(m_pythondiv=False), reduced, divisor, suffix="sqrt_n")]
    if unsorted or reduction == "prod":
        return [reduced]  # prod of nothing is 1 (sorted too); unsorted min/max keep the identity
    return [ctx.op(Select(), empty, _zero(ctx, dtype), reduced, suffix="empty_is_zero")]


# ---------------------------------------------------------------------- scatter
@extractor("tf", "ScatterNd", produces=lowering.SCATTER_ND_INTO_ZEROS_OPS)
def _scatter_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ScatterNd(indices, updates, shape): zeros of ``shape`` with the updates added in."""
    return [lowering.scatter_nd_into_zeros(ctx, ctx.input(0), ctx.input(1), ctx.input(2), _data_dtype(ctx, node))]


@extractor("tf", "SparseToDense", produces=[Reshape, Broadcast, ScatterNDUpdate, Concat, Convert, Gather, ShapeOf])
def _sparse_to_dense(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SparseToDense(sparse_indices, output_shape, sparse_values, default_value).
    Indices are 0-D, [N] (a rank-1 output) or [N, R]; values a scalar or [N].
    """
    shape = to_i64(ctx, ctx.input(1), "shape")
    rank = ctx.op(ShapeOf(output_type=I64), shape, suffix="rank")
    index_shape = ctx.op(Concat(axis=0), i64(ctx, [-1], "any"), rank, suffix="index_shape")
    indices = ctx.op(Reshape(special_zero=False), ctx.input(0), index_shape, suffix="indices")
    count = ctx.op(
        Gather(batch_dims=0),
        ctx.op(ShapeOf(output_type=I64), indices, suffix="index_dims"),
        i64(ctx, [0], "first"),
        i64(ctx, 0, "axis"),
        suffix="count",
    )
    values = _filled(ctx, ctx.input(2), count, "values")
    dense = _filled(ctx, ctx.input(3), shape, "defaults")
    return [ctx.op(ScatterNDUpdate(reduction="none"), dense, indices, values)]


#: ScatterNDUpdate's reduction for each TensorScatter op.
_TENSOR_SCATTER_REDUCTIONS = {
    "TensorScatterUpdate": "none",
    "TensorScatterAdd": "sum",
    "TensorScatterSub": "sub",
    "TensorScatterMax": "max",
    "TensorScatterMin": "min",
}


def _tensor_scatter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TensorScatterUpdate/Add/Sub/Max/Min(tensor, indices, updates): ``tensor`` with the
    updates written (or added, subtracted, ...) at the index tuples; duplicates reduce."""
    reduction = _TENSOR_SCATTER_REDUCTIONS[ctx.source_op.op_type]
    return [ctx.op(ScatterNDUpdate(reduction=reduction), ctx.input(0), ctx.input(1), ctx.input(2))]


# ---------------------------------------------------------------------- bincount
def _bin_updates(ctx: ExtractContext, dtype: np.dtype, values: OutPort, weights_idx: int) -> OutPort:
    """The weights (same shape as ``values``), or ones when the weights are empty."""
    one = ctx.const(np.ones((), dtype), suffix="one_count")
    shape = ctx.op(ShapeOf(output_type=I64), values, suffix="values_shape")
    ones = _filled(ctx, one, shape, "ones")
    weights = ctx.input(weights_idx)
    weights_shape = ctx.input_shape(weights_idx)
    if weights_shape is not None and all(d is not None for d in weights_shape):
        if math.prod(d for d in weights_shape if d is not None) == 0:
            return ones
        return weights
    # unknown: the weights flattened, then ones; the first size(values) of those
    flat_weights = ctx.op(Reshape(special_zero=False), weights, i64(ctx, [-1], "flat"), suffix="flat_weights")
    flat_ones = ctx.op(Reshape(special_zero=False), ones, i64(ctx, [-1], "flat"), suffix="flat_ones")
    joined = ctx.op(Concat(axis=0), flat_weights, flat_ones, suffix="weights_or_ones")
    count = ctx.op(ShapeOf(output_type=I64), flat_ones, suffix="count")
    head = ctx.op(Slice(), joined, i64(ctx, [0], "begin"), count, i64(ctx, [1], "step"), suffix="head")
    return ctx.op(Reshape(special_zero=False), head, shape, suffix="updates")


def _bincount_into(
    ctx: ExtractContext, dtype: np.dtype, values: OutPort, size: OutPort, updates: OutPort, binary: bool, rows: bool
) -> OutPort:
    """Counts (weight sums; 1 for present when ``binary``) of ``values`` into ``size`` bins,
    values >= size ignored (sent to an extra bin that is sliced off). ``rows``: values is
    [B, N] and each row gets its own bins ([B, size])."""
    ids = to_i64(ctx, values, "ids")
    size = _as_vector(ctx, size, "size")
    size_scalar = ctx.op(Squeeze(), size, i64(ctx, [0], "axis0"), suffix="size_scalar")
    inside = ctx.op(Less(), ids, size_scalar, suffix="inside")
    ids = ctx.op(Select(), inside, ids, size_scalar, suffix="kept_ids")
    bins = ctx.op(Add(), size, i64(ctx, [1], "one"), suffix="bins_with_dropped")
    indices = ctx.op(Unsqueeze(), ids, i64(ctx, [-1], "last_axis"), suffix="indices")
    shape = bins
    axis = 0
    if rows:
        dims = ctx.op(ShapeOf(output_type=I64), ids, suffix="ids_shape")
        batch = ctx.op(
            Slice(), dims, i64(ctx, [0], "begin"), i64(ctx, [1], "end"), i64(ctx, [1], "step"),
            suffix="batch",
        )  # fmt: skip
        shape = ctx.op(Concat(axis=0), batch, bins, suffix="out_shape")
        count = ctx.op(Squeeze(), batch, i64(ctx, [0], "axis0"), suffix="batch_scalar")
        positions = ctx.op(Range(output_type=I64), i64(ctx, 0, "zero"), count, i64(ctx, 1, "one_step"), suffix="rows")
        row_index = ctx.op(Unsqueeze(), positions, i64(ctx, [1, 2], "row_axes"), suffix="row_index")
        row_index = ctx.op(Broadcast(mode="bidirectional"), row_index, ctx.op(ShapeOf(output_type=I64), indices))
        indices = ctx.op(Concat(axis=-1), row_index, indices, suffix="row_indices")
        axis = 1
    zeros = _filled(ctx, _zero(ctx, dtype), shape, "zeros")
    counted = ctx.op(ScatterNDUpdate(reduction="max" if binary else "sum"), zeros, indices, updates, suffix="counts")
    return ctx.op(
        Slice(),
        counted,
        i64(ctx, [0], "begin"),
        size,
        i64(ctx, [1], "step"),
        i64(ctx, [axis], "axis"),
    )


@extractor("tf", "Bincount", produces=[Broadcast, ScatterNDUpdate, Slice, Add, Convert, Less, Reshape, Select, ShapeOf, Squeeze, Unsqueeze, Concat, Range])
def _bincount(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Bincount(arr, size, weights): [size] weight sums per value of arr (any shape), or
    counts for empty weights. TF rejects negative values; values >= size are ignored."""
    dtype = _data_dtype(ctx, node)
    updates = _bin_updates(ctx, dtype, ctx.input(0), 2)
    return [_bincount_into(ctx, dtype, ctx.input(0), ctx.input(1), updates, binary=False, rows=False)]


@extractor("tf", "DenseBincount", produces=[Broadcast, ScatterNDUpdate, Slice, Add, Concat, Convert, Less, Range, Reshape, Select, ShapeOf, Squeeze, Unsqueeze])
def _dense_bincount(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """DenseBincount(input [N] or [B, N], size, weights): Bincount per row; with
    ``binary_output`` 1 where a value occurs (the weights ignored)."""
    dtype = _data_dtype(ctx, node)
    rank = require_rank(ctx, 0)
    if rank not in (1, 2):
        raise ConversionError(f"{ctx.where()}: the input must have rank 1 or 2, not {rank}")
    binary = ctx.attrs.bool("binary_output", False)
    if binary:
        one = ctx.const(np.ones((), dtype), suffix="one_count")
        updates = _filled(ctx, one, ctx.op(ShapeOf(output_type=I64), ctx.input(0), suffix="values_shape"), "ones")
    else:
        updates = _bin_updates(ctx, dtype, ctx.input(0), 2)
    return [_bincount_into(ctx, dtype, ctx.input(0), ctx.input(1), updates, binary=binary, rows=rank == 2)]


# --------------------------------------------------------------------- segments
@extractor("tf", "UnsortedSegmentSum", produces=[Broadcast, ScatterNDUpdate, Add, Concat, Convert, Less, Reshape, Select, ShapeOf, Slice, Squeeze, Unsqueeze])
def _unsorted_segment_sum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = _as_vector(ctx, ctx.input(2), "num_segments")
    return [_segment_sum(ctx, _data_dtype(ctx, node), ctx.input(0), ctx.input(1), count, drop_negative=True)]


@extractor("tf", "SegmentSum", produces=[*lowering.SEGMENT_COUNT_OPS, Broadcast, ScatterNDUpdate, ShapeOf, Slice, Unsqueeze, Less, Select, Squeeze])
def _segment_sum_sorted(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = lowering.segment_count(ctx, ctx.input(1), "num_segments")
    return [_segment_sum(ctx, _data_dtype(ctx, node), ctx.input(0), ctx.input(1), count, drop_negative=False)]


def _sparse_segment_sum(node: Node, ctx: ExtractContext, with_count: bool) -> list[OutPort]:
    rows = ctx.op(Gather(batch_dims=0), ctx.input(0), ctx.input(1), i64(ctx, 0, "axis"), suffix="rows")
    if with_count:
        count = _as_vector(ctx, ctx.input(3), "num_segments")
    else:
        count = lowering.segment_count(ctx, ctx.input(2), "num_segments")
    return [_segment_sum(ctx, _data_dtype(ctx, node), rows, ctx.input(2), count, drop_negative=False)]


# ----------------------------------------------------------------------- unique
def _unique(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Unique(x) -> y (first-occurrence order), idx: Unique-10 unsorted, outputs 0 and 2.
    The CPU plugin fails on an empty input, so a zero is appended first: its first
    occurrence is last unless x holds one, so the positions of x's elements are the first
    len(x) of the result's and y is the first max(idx) + 1 uniques.
    """
    out = element_type(ctx.attrs.int("out_idx", 3), ctx.where())
    sentinel = ctx.const(np.zeros([1], _data_dtype(ctx, node)), suffix="sentinel")
    padded = ctx.op(Concat(axis=0), ctx.input(0), sentinel, suffix="padded")
    unique = ctx.add(Unique(sorted=False, index_element_type=out, count_element_type=out), [padded])
    length = ctx.op(ShapeOf(output_type=I64), ctx.input(0), suffix="length")
    step, begin = i64(ctx, [1], "step"), i64(ctx, [0], "begin")
    idx = ctx.op(Slice(), unique.out_port(2), begin, length, step, suffix="idx")
    count = lowering.segment_count(ctx, idx, "count")
    return [ctx.op(Slice(), unique.out_port(0), begin, count, step, suffix="y"), idx, count]


@extractor("tf", "UniqueWithCounts", produces=[Unique, ScatterNDUpdate, *lowering.SEGMENT_COUNT_OPS, Broadcast, ShapeOf, Slice, Unsqueeze, Less, Select, Squeeze])
def _unique_with_counts(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """UniqueWithCounts(x) -> Unique's y and idx, and how often each of y occurs (the ones
    of x summed per idx: Unique-10's own counts include the appended zero)."""
    y, idx, count = _unique(node, ctx)
    out = element_type(ctx.attrs.int("out_idx", 3), ctx.where())
    dtype = out.numpy
    ones = _filled(ctx, ctx.const(np.ones((), dtype), suffix="one"), ctx.op(ShapeOf(output_type=I64), idx), "ones")
    return [y, idx, _segment_reduce(ctx, dtype, ones, idx, count, False, "sum")]


@extractor("tf", "ListDiff", produces=[Equal, Reduction.SUM.op, NonZero, Gather, Convert, Squeeze, Unsqueeze])
def _list_diff(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ListDiff(x, y) -> the values of x not in y (in x's order) and their positions in x."""
    out = element_type(ctx.attrs.int("out_idx", 3), ctx.where())
    column = ctx.op(Unsqueeze(), ctx.input(0), i64(ctx, [1], "column_axis"), suffix="x_column")
    row = ctx.op(Unsqueeze(), ctx.input(1), i64(ctx, [0], "row_axis"), suffix="y_row")
    matches = ctx.op(Convert(destination_type=ElementType.i32), ctx.op(Equal(), column, row), suffix="matches")
    found = ctx.op(Reduction.SUM.make(False), matches, i64(ctx, [1], "y_axis"), suffix="found")
    missing = ctx.op(Equal(), found, ctx.const(np.int32(0), suffix="zero"), suffix="missing")
    positions = ctx.op(NonZero(output_type=I64), missing, suffix="NonZero")
    positions = ctx.op(Squeeze(), positions, i64(ctx, [0], "axis0"), suffix="positions")
    values = ctx.op(Gather(batch_dims=0), ctx.input(0), positions, i64(ctx, 0, "axis"), suffix="values")
    return [values, ctx.op(Convert(destination_type=out), positions, suffix="indices")]


# ------------------------------------------------------------------ unravelling
@extractor("tf", "UnravelIndex", produces=[Divide, FloorMod, Convert, Unsqueeze, Broadcast, Less, Range, Select, ShapeOf, Squeeze, ReduceProd])
def _unravel_index(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """UnravelIndex(indices, dims): coordinate j = (index // stride_j) % dims_j, as [R] for a
    scalar index and [R, N] for N indices."""
    index_type = ctx.input_type(0)
    dims = to_i64(ctx, ctx.input(1), "dims")
    dims_value = ctx.input_value(1)
    if dims_value is not None:
        sizes = np.asarray(dims_value, np.int64).reshape(-1)
        strides_value = np.array([np.prod(sizes[j + 1 :], dtype=np.int64) for j in range(sizes.size)], np.int64)
        strides = i64(ctx, strides_value, "strides")
    else:
        # stride_j = prod(dims[j + 1:]) = prod(where(position > j, dims, 1))
        count = ctx.op(ShapeOf(output_type=I64), dims, suffix="count")
        count = ctx.op(Squeeze(), count, i64(ctx, [0], "axis0"), suffix="count_scalar")
        positions = ctx.op(
            Range(output_type=I64), i64(ctx, 0, "start"), count, i64(ctx, 1, "delta"), suffix="positions"
        )
        column = ctx.op(Unsqueeze(), positions, i64(ctx, [1], "column_axis"), suffix="position_column")
        later = ctx.op(Less(), column, positions, suffix="later")
        grid = ctx.op(Broadcast(mode="bidirectional"), dims, ctx.op(ShapeOf(output_type=I64), later), suffix="grid")
        factors = ctx.op(Select(), later, grid, i64(ctx, 1, "one"), suffix="factors")
        strides = ctx.op(Reduction.PROD.make(False), factors, i64(ctx, [1], "axis1"), suffix="strides")
    index = to_i64(ctx, ctx.input(0), "index")
    if ctx.input_rank(0) != 0:
        axis = i64(ctx, [1], "column_axis")
        strides = ctx.op(Unsqueeze(), strides, axis, suffix="stride_column")
        dims = ctx.op(Unsqueeze(), dims, axis, suffix="dims_column")
        index = ctx.op(Unsqueeze(), index, i64(ctx, [0], "row_axis"), suffix="index_row")
    quotient = ctx.op(Divide(m_pythondiv=False), index, strides, suffix="quotient")
    coords = ctx.op(FloorMod(), quotient, dims, suffix="coords")
    return [ctx.op(Convert(destination_type=index_type), coords, suffix="Convert")]


# ------------------------------------------------------------------- stitching
def _dynamic_stitch(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """DynamicStitch(indices[N], data[N]): ``merged[indices[m][i]] = data[m][i]``, later wins.
    All index tensors are flattened and joined (positions 0..M-1), the data rows likewise.
    For each output row the last position writing it comes from ScatterNDUpdate(max) of
    position + 1 over zeros; a Gather from the rows behind one zero row (for rows nothing
    writes) then picks the winners.
    """
    n = ctx.attrs.int("N", len(ctx.inputs) // 2)
    dtype = _data_dtype(ctx, node)
    flat_ids, flat_rows = [], []
    for m in range(n):
        ids, data = ctx.input(m), ctx.input(n + m)
        flat_ids.append(
            ctx.op(
                Reshape(special_zero=False),
                to_i64(ctx, ids, f"ids{m}"),
                i64(ctx, [-1], "flat"),
                suffix=f"flat_ids{m}",
            )
        )
        tail = _trailing_dims(ctx, data, ids, f"row_dims{m}")
        rows_shape = ctx.op(Concat(axis=0), i64(ctx, [-1], "any"), tail, suffix=f"rows_shape{m}")
        flat_rows.append(ctx.op(Reshape(special_zero=False), data, rows_shape, suffix=f"rows{m}"))
    ids = flat_ids[0] if n == 1 else ctx.op(Concat(axis=0), *flat_ids, suffix="ids")
    rows = flat_rows[0] if n == 1 else ctx.op(Concat(axis=0), *flat_rows, suffix="rows")
    count = lowering.segment_count(ctx, ids, "count")
    total = ctx.op(ShapeOf(output_type=I64), ids, suffix="total")
    total = ctx.op(Squeeze(), total, i64(ctx, [0], "axis0"), suffix="total_scalar")
    stop = ctx.op(Add(), total, i64(ctx, 1, "one"), suffix="stop")
    one = i64(ctx, 1, "one")
    positions = ctx.op(Range(output_type=I64), one, stop, one, suffix="positions")  # 1..M
    zeros = _filled(ctx, i64(ctx, 0, "no_writer"), count, "no_writers")
    indices = ctx.op(Unsqueeze(), ids, i64(ctx, [-1], "last_axis"), suffix="indices")
    winners = ctx.op(ScatterNDUpdate(reduction="max"), zeros, indices, positions, suffix="winners")
    tail = _trailing_dims(ctx, flat_rows[0], flat_ids[0], "row_dims")
    blank_shape = ctx.op(Concat(axis=0), i64(ctx, [1], "one_row"), tail, suffix="blank_shape")
    blank = _filled(ctx, _zero(ctx, dtype), blank_shape, "blank")
    source = ctx.op(Concat(axis=0), blank, rows, suffix="source")
    return [ctx.op(Gather(batch_dims=0), source, winners, i64(ctx, 0, "axis"))]


DYNAMIC_STITCH = aliases("tf", ["DynamicStitch", "ParallelDynamicStitch"], _dynamic_stitch, produces=[ScatterNDUpdate, Gather, *lowering.SEGMENT_COUNT_OPS, Broadcast, Range, ShapeOf, Slice, Squeeze, Unsqueeze])


@extractor("tf", "SparseSegmentSum", produces=[Gather, *lowering.SEGMENT_COUNT_OPS, ScatterNDUpdate, Broadcast, ShapeOf, Slice, Unsqueeze, Less, Select, Squeeze])
def _sparse_segment_sum_op(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _sparse_segment_sum(node, ctx, False)


TENSOR_SCATTER = aliases("tf", list(_TENSOR_SCATTER_REDUCTIONS), _tensor_scatter, produces=[ScatterNDUpdate])


#: The segment reductions one helper lowers: TF op -> (reduction, where the ids come from).
_SEGMENT_OPS: dict[str, tuple[str, str]] = {
    f"{prefix}{name}": (name.removesuffix("WithNumSegments").lower().replace("sqrtn", "sqrt_n"), source)
    for prefix, source, names in (
        ("Segment", "sorted", ("Mean", "Prod", "Min", "Max")),
        ("UnsortedSegment", "unsorted", ("Prod", "Min", "Max")),
        ("SparseSegment", "sparse", ("SumWithNumSegments", "Mean", "MeanWithNumSegments", "SqrtN", "SqrtNWithNumSegments")),
    )
    for name in names
}


def _segment(node: Node, ctx: ExtractContext) -> list[OutPort]:
    reduction, source = _SEGMENT_OPS[ctx.source_op.op_type]
    return _segment_family(node, ctx, reduction, source)


SEGMENT = aliases(
    "tf", list(_SEGMENT_OPS), _segment,
    produces=[Broadcast, ScatterNDUpdate, Select, Divide, *lowering.SEGMENT_COUNT_OPS, Equal, Maximum, ShapeOf, Slice,
              Unsqueeze, Gather, Sqrt, Less, Squeeze],
)


@extractor("tf", "Unique", produces=[Unique, *lowering.SEGMENT_COUNT_OPS, ShapeOf, Slice])
def _unique_values(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Unique's y and idx (UniqueWithCounts adds the counts)."""
    return _unique(node, ctx)[:2]
