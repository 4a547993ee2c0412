"""Index-list TF ops with dense lowerings: DynamicPartition and SparseReshape."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import const_like, extractor, i64, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Concat,
    Divide,
    Equal,
    FloorMod,
    Gather,
    Greater,
    Multiply,
    NonZero,
    Range,
    ReduceProd,
    ReduceSum,
    Reshape,
    Select,
    ShapeOf,
    Slice,
    Squeeze,
    Unsqueeze,
)
from irconv_opset.build import shape_of

I64 = ElementType.i64


@extractor("tf", "DynamicPartition", produces=[Reshape, Equal, NonZero, Gather, Concat, ShapeOf, Slice, Squeeze])
def _dynamic_partition(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """DynamicPartition(data, partitions): output i = the rows of data whose partition is i,
    in order. ``partitions`` covers data's leading dims (a prefix of its shape), so both are
    flattened over those dims and each output is a Gather of the rows NonZero selects."""
    count = ctx.attrs.int("num_partitions")
    lead = require_rank(ctx, 1)
    parts = ctx.op(Reshape(special_zero=False), ctx.input(1), i64(ctx, [-1], "flat"), suffix="flat_partitions")
    dims = shape_of(ctx, ctx.input(0), "data_shape")
    rank = shape_of(ctx, dims, "data_rank")
    rest = ctx.op(Slice(), dims, i64(ctx, [lead], "lead"), rank, i64(ctx, [1], "step"), suffix="row_dims")
    rows_shape = ctx.op(Concat(axis=0), i64(ctx, [-1], "rows"), rest, suffix="rows_shape")
    rows = ctx.op(Reshape(special_zero=False), ctx.input(0), rows_shape, suffix="rows")
    outputs = []
    for i in range(count):
        chosen = ctx.op(Equal(), parts, const_like(ctx, i, parts, f"partition{i}"), suffix=f"is{i}")
        where = ctx.op(NonZero(output_type=I64), chosen, suffix=f"where{i}")
        index = ctx.op(Squeeze(), where, i64(ctx, [0], "axis0"), suffix=f"index{i}")
        outputs.append(ctx.op(Gather(batch_dims=0), rows, index, i64(ctx, 0, "axis"), suffix=f"output{i}"))
    return outputs


@extractor("tf", "SparseReshape", produces=[ReduceProd, Select, Divide, Multiply, ReduceSum, FloorMod, Range, Equal, Greater, ShapeOf, Squeeze, Unsqueeze])
def _sparse_reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SparseReshape(indices [N, R], shape [R], new_shape [R']): the dense positions of the
    entries stay, so each index row becomes a linear offset in ``shape`` and is spelt out
    again in the new shape; a -1 in ``new_shape`` takes what the other dims leave."""
    old_shape, new_shape = ctx.input(1), ctx.input(2)
    axis0 = i64(ctx, [0], "axis0")
    total = ctx.op(ReduceProd(keep_dims=True), old_shape, axis0, suffix="total")
    inferred = ctx.op(Equal(), new_shape, i64(ctx, -1, "minus_one"), suffix="inferred")
    given = ctx.op(Select(), inferred, i64(ctx, 1, "one"), new_shape, suffix="given")
    known = ctx.op(ReduceProd(keep_dims=True), given, axis0, suffix="known")
    missing = ctx.op(Divide(), total, known, suffix="missing")
    out_shape = ctx.op(Select(), inferred, missing, new_shape, suffix="output_shape")
    offsets = ctx.op(
        ReduceSum(keep_dims=False),
        ctx.op(Multiply(), ctx.input(0), _strides(ctx, old_shape, "old"), suffix="scaled"),
        i64(ctx, [1], "axis1"),
        suffix="offsets",
    )
    column = ctx.op(Unsqueeze(), offsets, i64(ctx, [1], "axis1"), suffix="offset_column")
    quotient = ctx.op(Divide(), column, _strides(ctx, out_shape, "new"), suffix="quotient")
    indices = ctx.op(FloorMod(), quotient, out_shape, suffix="output_indices")
    return [indices, out_shape]


def _strides(ctx: ExtractContext, shape: OutPort, suffix: str) -> OutPort:
    """Row-major strides of ``shape`` (i64 [R], R known or not): stride[r] = prod(shape[c]
    for c > r), the product of each row of an [R, R] matrix holding shape[c] where c > r, else 1."""
    count = ctx.op(Squeeze(), shape_of(ctx, shape, f"{suffix}_rank"), i64(ctx, [0], "axis0"))
    axis = ctx.op(Range(output_type=I64), i64(ctx, 0, "zero"), count, i64(ctx, 1, "one"), suffix=f"{suffix}_axes")
    later = ctx.op(
        Greater(),
        ctx.op(Unsqueeze(), axis, i64(ctx, [0], "axis0")),
        ctx.op(Unsqueeze(), axis, i64(ctx, [1], "axis1")),
        suffix=f"{suffix}_later",
    )
    factors = ctx.op(Select(), later, shape, i64(ctx, 1, "one"), suffix=f"{suffix}_factors")
    return ctx.op(ReduceProd(keep_dims=False), factors, i64(ctx, [1], "axis1"), suffix=f"{suffix}_strides")


