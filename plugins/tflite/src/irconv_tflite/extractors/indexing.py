"""Indexing and scattering: one-hot, scatter, segment reductions, embedding lookup,
WHERE, UNIQUE, bucketize, diagonals, REVERSE_SEQUENCE, DYNAMIC_UPDATE_SLICE, RANK and
BROADCAST_ARGS."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Bucketize,
    Concat,
    Convert,
    Equal,
    Gather,
    Less,
    Maximum,
    Minimum,
    NonZero,
    OneHot,
    Range,
    Reshape,
    ReverseSequence,
    ScatterNDUpdate,
    Select,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
    Transpose,
    Unique,
    Unsqueeze,
)
from irconv_opset.build import rank_of, shape_of
from irconv_opset.lowering import indexing as lowering

from irconv_tflite.extractors._common import declared_shape, input_dtype, known_rank, output_type, whole

I64 = ElementType.i64


def _filled(ctx: ExtractContext, value: np.ndarray, shape: OutPort, suffix: str) -> OutPort:
    return ctx.op(Broadcast(mode="numpy"), ctx.const(value, suffix=f"{suffix}_value"), shape, suffix=suffix)


def _data_dtype(ctx: ExtractContext, idx: int = 0) -> np.dtype:
    return input_dtype(ctx, idx)


@extractor("tflite", "ONE_HOT", produces=[OneHot])
def one_hot(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: indices, depth (a scalar), on value, off value; an index outside [0, depth)
    gives a row of off values in both."""
    return whole(ctx, OneHot(axis=ctx.attrs.int("axis", -1)))


@extractor("tflite", "SCATTER_ND", produces=lowering.SCATTER_ND_INTO_ZEROS_OPS)
def scatter_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: indices [..., K], updates, shape (TFLite sums repeated indices)."""
    zeros_dtype = _data_dtype(ctx, 1)
    return [lowering.scatter_nd_into_zeros(ctx, ctx.input(0), ctx.input(1), ctx.input(2), zeros_dtype, "scatter")]


def _segments(ctx: ExtractContext, count: OutPort, reduction: str, initial: np.ndarray,
              drop_negative: bool) -> OutPort:
    """``data`` (input 0) rows reduced per segment id (input 1) into ``count`` ([1], i64)
    rows that start at ``initial``; with ``drop_negative``, rows of a negative id are left
    out (they go to one extra row, cut off at the end)."""
    ids = lowering.to_i64(ctx, ctx.input(1), "ids")
    rows = count
    if drop_negative:
        extra = ctx.op(Squeeze(), count, i64(ctx, [0], "axis0"), suffix="extra_row")
        ids = ctx.op(Select(), ctx.op(Less(), ids, i64(ctx, 0, "zero"), suffix="negative"), extra, ids,
                     suffix="kept_ids")
        rows = ctx.op(Add(), count, i64(ctx, [1], "one"), suffix="rows")
    data_shape = shape_of(ctx, ctx.input(0), "data_shape")
    id_rank = ctx.op(ShapeOf(output_type=I64), shape_of(ctx, ids, "ids_shape"), suffix="id_rank")
    tail = ctx.op(Slice(), data_shape, id_rank, i64(ctx, [np.iinfo(np.int64).max], "to_end"), i64(ctx, [1], "step"),
                  suffix="row_dims")
    start = _filled(ctx, initial, ctx.op(Concat(axis=0), rows, tail, suffix="out_shape"), "initial")
    indices = ctx.op(Unsqueeze(), ids, i64(ctx, [-1], "last_axis"), suffix="indices")
    reduced = ctx.op(ScatterNDUpdate(reduction=reduction), start, indices, ctx.input(0), suffix="reduced")
    if not drop_negative:
        return reduced
    return ctx.op(Slice(), reduced, i64(ctx, [0], "begin"), count, i64(ctx, [1], "step1"), suffix="kept")


_SEGMENT_OPS = [Convert, Squeeze, Select, Less, Add, ShapeOf, Slice, Concat, Broadcast, Unsqueeze, ScatterNDUpdate]


@extractor("tflite", "SEGMENT_SUM", produces=list(dict.fromkeys([*_SEGMENT_OPS, *lowering.SEGMENT_COUNT_OPS])))
def segment_sum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: data, sorted segment ids: max(ids) + 1 rows, an empty segment 0."""
    count = lowering.segment_count(ctx, ctx.input(1), "count")
    return [_segments(ctx, count, "sum", np.zeros((), _data_dtype(ctx)), drop_negative=False)]


def unsorted_segment(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """UNSORTED_SEGMENT_<reduction>(data, ids, num_segments): an empty segment holds the
    reduction's identity (0, 1, the lowest or the highest value, as TFLite's kernels);
    negative ids are dropped."""
    reduction = ctx.source_op.op_type.removeprefix("UNSORTED_SEGMENT_").lower()
    dtype = _data_dtype(ctx)
    info = np.finfo(dtype) if np.issubdtype(dtype, np.floating) else np.iinfo(dtype)
    initial = {"sum": 0, "prod": 1, "max": info.min, "min": info.max}[reduction]
    given = lowering.to_i64(ctx, ctx.input(2), "num_segments")
    count = ctx.op(Reshape(special_zero=False), given, i64(ctx, [1], "one"), suffix="count")
    return [_segments(ctx, count, reduction, np.array(initial, dtype), drop_negative=True)]


UNSORTED_SEGMENTS = aliases("tflite", [f"UNSORTED_SEGMENT_{name}" for name in ("SUM", "PROD", "MAX", "MIN")],
                            unsorted_segment, produces=[*_SEGMENT_OPS, Reshape])


@extractor("tflite", "EMBEDDING_LOOKUP", produces=[Gather])
def embedding_lookup(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: ids, then the table: the table's rows at the ids."""
    return [ctx.op(Gather(batch_dims=0), ctx.input(1), ctx.input(0), i64(ctx, 0, "axis"), suffix="rows")]


@extractor("tflite", "WHERE", produces=[NonZero, Transpose])
def where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The coordinates of the true (non-zero) elements, [count, rank] in row-major order:
    NonZero gives them as [rank, count]."""
    coordinates = ctx.op(NonZero(output_type=I64), ctx.input(0), suffix="nonzero")
    return [ctx.op(Transpose(), coordinates, i64(ctx, [1, 0], "perm"), suffix="where")]


@extractor("tflite", "UNIQUE", produces=[Unique])
def unique(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A vector's distinct values in order of first occurrence, and each element's position
    among them (``idx_out_type``)."""
    index_type = output_type(ctx, 1)
    found = ctx.add(Unique(sorted=False, index_element_type=index_type, count_element_type=index_type),
                    [ctx.input(0)], suffix="unique")
    return [found.out_port(0), found.out_port(2)]


@extractor("tflite", "BUCKETIZE", produces=[Bucketize])
def bucketize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The index of the bucket each value falls in: boundaries[i-1] <= x < boundaries[i]."""
    boundaries = ctx.const(np.asarray(ctx.attrs.floats("boundaries", []), _data_dtype(ctx)), suffix="boundaries")
    op = Bucketize(output_type=output_type(ctx), with_right_bound=False)
    return [ctx.op(op, ctx.input(0), boundaries, suffix="bucketize")]


def _diagonal_mask(ctx: ExtractContext, rows: OutPort, cols: OutPort) -> OutPort:
    """[rows, cols] booleans, true where row == column."""
    row = ctx.op(Range(output_type=I64), i64(ctx, 0, "zero"), rows, i64(ctx, 1, "one"), suffix="row_index")
    col = ctx.op(Range(output_type=I64), i64(ctx, 0, "zero_c"), cols, i64(ctx, 1, "one_c"), suffix="col_index")
    return ctx.op(Equal(), ctx.op(Unsqueeze(), row, i64(ctx, [1], "as_column"), suffix="rows"), col, suffix="diagonal")


def _dim(ctx: ExtractContext, port: OutPort, axis: int, suffix: str) -> OutPort:
    """The scalar size of ``port`` along ``axis`` (negative from the end)."""
    return ctx.op(Gather(), shape_of(ctx, port, f"{suffix}_shape"), i64(ctx, axis, f"{suffix}_axis"), i64(ctx, 0),
                  suffix=suffix)


@extractor("tflite", "MATRIX_DIAG", produces=[ShapeOf, Gather, Range, Equal, Unsqueeze, Select, Broadcast])
def matrix_diag(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A batch of diagonals [..., N] -> matrices [..., N, N] with them on the diagonal."""
    size = _dim(ctx, ctx.input(0), -1, "size")
    column = ctx.op(Unsqueeze(), ctx.input(0), i64(ctx, [-1], "last"), suffix="diagonal_column")
    zero = ctx.const(np.zeros((), _data_dtype(ctx)), suffix="zero_value")
    return [ctx.op(Select(), _diagonal_mask(ctx, size, size), column, zero, suffix="matrix")]


@extractor("tflite", "MATRIX_SET_DIAG", produces=[ShapeOf, Gather, Range, Equal, Unsqueeze, Select, Slice, Concat,
                                                 Broadcast])
def matrix_set_diag(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Matrices [..., M, N] with their main diagonal replaced by input 1 [..., min(M, N)].
    The diagonal's value for column j sits at row j: written as a row [..., 1, K] padded
    with zeros to N columns when K < N (M < N), then selected on the diagonal."""
    shape = declared_shape(ctx, 0)
    if shape is None or len(shape) < 2 or shape[-1] is None or shape[-2] is None:
        raise ctx.attrs.bad("input", shape, "MATRIX_SET_DIAG needs the matrices' last two dimensions known")
    rows, cols = int(shape[-2]), int(shape[-1])
    diagonal = ctx.op(Unsqueeze(), ctx.input(1), i64(ctx, [-2], "row_axis"), suffix="diagonal_row")
    if rows < cols:
        diag_shape = shape_of(ctx, diagonal, "diagonal_shape")
        lead = ctx.op(Slice(), diag_shape, i64(ctx, [0]), i64(ctx, [-1]), i64(ctx, [1]), suffix="lead_dims")
        pad_shape = ctx.op(Concat(axis=0), lead, i64(ctx, [cols - rows], "pad_cols"), suffix="pad_shape")
        padding = _filled(ctx, np.zeros((), _data_dtype(ctx, 1)), pad_shape, "pad")
        diagonal = ctx.op(Concat(axis=-1), diagonal, padding, suffix="diagonal_padded")
    mask = _diagonal_mask(ctx, i64(ctx, rows, "rows"), i64(ctx, cols, "cols"))
    return [ctx.op(Select(), mask, diagonal, ctx.input(0), suffix="matrix")]


@extractor("tflite", "REVERSE_SEQUENCE", produces=[ReverseSequence])
def reverse_sequence(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: x, the lengths of the prefixes to reverse along ``seq_dim``, one per ``batch_dim`` entry."""
    rank = known_rank(ctx)
    seq, batch = ctx.attrs.int("seq_dim"), ctx.attrs.int("batch_dim", 0)
    return whole(ctx, ReverseSequence(batch_axis=batch % rank, seq_axis=seq % rank))


@extractor("tflite", "RANK", produces=[ShapeOf, Squeeze, Convert])
def rank(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The input's rank as a scalar of the declared output type (int32)."""
    scalar = ctx.op(Squeeze(), rank_of(ctx, ctx.input(0)), i64(ctx, [0], "axis"), suffix="rank_scalar")
    return [ctx.op(Convert(destination_type=output_type(ctx)), scalar, suffix="rank")]


@extractor("tflite", "BROADCAST_ARGS", produces=[Concat, Equal, Select])
def broadcast_args(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The shape two shapes broadcast to: both padded with leading ones to the same length,
    then per axis the other one's size where a size is 1."""
    lengths = [ctx.input_shape(i) for i in (0, 1)]
    if any(s is None or len(s) != 1 or s[0] is None for s in lengths):
        raise ctx.attrs.bad("shapes", lengths, "BROADCAST_ARGS needs shape vectors of known length")
    longest = max(int(s[0]) for s in lengths if s is not None and s[0] is not None)
    padded = []
    for i, s in enumerate(lengths):
        assert s is not None and s[0] is not None
        port = ctx.input(i)
        missing = longest - int(s[0])
        if missing:
            ones = ctx.const(np.ones(missing, _data_dtype(ctx, i)), suffix=f"ones{i}")
            port = ctx.op(Concat(axis=0), ones, port, suffix=f"aligned{i}")
        padded.append(port)
    is_one = ctx.op(Equal(), padded[0], ctx.const(np.ones((), _data_dtype(ctx)), suffix="one"), suffix="first_is_one")
    return [ctx.op(Select(), is_one, padded[1], padded[0], suffix="broadcast_shape")]



@extractor("tflite", "DYNAMIC_UPDATE_SLICE", produces=[Convert, ShapeOf, Subtract, Maximum, Minimum, Add,
                                                      ScatterNDUpdate])
def dynamic_update_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: operand, update, start indices [rank]: the operand with the update written
    from the start indices, each clamped to [0, dim - update dim] so the update fits (as
    TFLite's kernel does). The update's shape must be known: its element coordinates are a
    constant grid, moved to the start (ScatterNDUpdate)."""
    update = declared_shape(ctx, 1)
    if update is None or any(d is None for d in update):
        raise ctx.attrs.bad("update", update, "DYNAMIC_UPDATE_SLICE needs the update's shape known")
    dims = [int(d) for d in update if d is not None]
    start = lowering.to_i64(ctx, ctx.input(2), "start")
    room = ctx.op(Subtract(), shape_of(ctx, ctx.input(0), "operand_shape"), i64(ctx, dims, "update_shape"),
                  suffix="room")
    start = ctx.op(Minimum(), ctx.op(Maximum(), start, i64(ctx, 0, "zero"), suffix="at_least_zero"), room,
                   suffix="clamped_start")
    grid = np.moveaxis(np.indices(dims, dtype=np.int64), 0, -1)
    indices = ctx.op(Add(), i64(ctx, grid, "update_grid"), start, suffix="indices")
    return [ctx.op(ScatterNDUpdate(), ctx.input(0), indices, ctx.input(1), suffix="updated")]
