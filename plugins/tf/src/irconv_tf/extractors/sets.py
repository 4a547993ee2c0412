"""DenseToDenseSetOperation: per-row set operations on integer matrices, as a sparse result.

Each row's candidates are set1's values (union: set1's then set2's); a candidate stays when
the operation wants it (a-b: not in set2's row, b-a the same with the sets swapped,
intersection: in it, union: always) and no earlier kept candidate of its row is equal.
TopK in ``min`` mode sorts the kept values of each row ascending (the others hold the type's
largest value, so they sort last), and the first ``count[row]`` of each row are the result:
``indices`` [(row, j)], ``values``, ``shape`` [rows, max count].
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Concat,
    Convert,
    Equal,
    Gather,
    GatherND,
    Less,
    LogicalAnd,
    LogicalNot,
    NonZero,
    Range,
    ReduceLogicalOr,
    ReduceMax,
    ReduceSum,
    Select,
    ShapeOf,
    TopK,
    Transpose,
    Unsqueeze,
)

I64 = ElementType.i64


def _pairwise_equal(ctx: ExtractContext, a: OutPort, b: OutPort, suffix: str) -> OutPort:
    """[rows, len(a), len(b)]: a[r, i] == b[r, j]."""
    return ctx.op(
        Equal(),
        ctx.op(Unsqueeze(), a, i64(ctx, [2], "axis2")),
        ctx.op(Unsqueeze(), b, i64(ctx, [1], "axis1")),
        suffix=suffix,
    )


@extractor("tf", "DenseToDenseSetOperation", produces=[Equal, ReduceLogicalOr, TopK, NonZero, GatherND, Concat, Convert, Gather, Less, LogicalAnd, LogicalNot, Range, ReduceMax, ReduceSum, Select, ShapeOf, Transpose, Unsqueeze])
def _dense_to_dense_set(node: Node, ctx: ExtractContext) -> list[OutPort]:
    operation = ctx.attrs.choice("set_operation", ["a-b", "b-a", "intersection", "union"])
    element = ctx.input_type(0)
    if ctx.input_rank(0) != 2 or ctx.input_rank(1) != 2 or not element.is_integer:
        raise ConversionError(
            f"{ctx.where()}: only integer sets of rank 2 ([rows, members]) convert "
            f"(ranks {ctx.input_rank(0)}, {ctx.input_rank(1)}, type {element.value})"
        )
    first, second = (ctx.input(1), ctx.input(0)) if operation == "b-a" else (ctx.input(0), ctx.input(1))
    if operation == "union":
        candidates = ctx.op(Concat(axis=1), first, second, suffix="candidates")
        wanted = ctx.op(Equal(), candidates, candidates, suffix="all_wanted")
    else:
        candidates = first
        found = ctx.op(
            ReduceLogicalOr(keep_dims=False), _pairwise_equal(ctx, first, second, "in_other"), i64(ctx, [2], "axis2")
        )
        wanted = found if operation == "intersection" else ctx.op(LogicalNot(), found, suffix="not_in_other")
    width = ctx.op(
        Gather(batch_dims=0), ctx.op(ShapeOf(output_type=I64), candidates), i64(ctx, 1, "one"), i64(ctx, 0, "axis0")
    )
    position = ctx.op(Range(output_type=I64), i64(ctx, 0, "zero"), width, i64(ctx, 1, "step"), suffix="position")
    earlier = ctx.op(
        Less(),
        ctx.op(Unsqueeze(), position, i64(ctx, [0], "axis0_v")),
        ctx.op(Unsqueeze(), position, i64(ctx, [1], "axis1")),
    )
    repeats = ctx.op(
        LogicalAnd(),
        ctx.op(LogicalAnd(), _pairwise_equal(ctx, candidates, candidates, "same"), earlier),
        ctx.op(Unsqueeze(), wanted, i64(ctx, [1], "axis1")),
        suffix="repeats_kept_earlier",
    )
    seen = ctx.op(ReduceLogicalOr(keep_dims=False), repeats, i64(ctx, [2], "axis2"), suffix="seen")
    kept = ctx.op(LogicalAnd(), wanted, ctx.op(LogicalNot(), seen), suffix="kept")
    largest = ctx.const(np.array(np.iinfo(element.numpy).max, element.numpy), suffix="largest")
    masked = ctx.op(Select(), kept, candidates, largest, suffix="masked")
    ordered = ctx.add(
        TopK(axis=1, mode="min", sort="value", index_element_type=I64, stable=True), [masked, width], suffix="sorted"
    ).out_port(0)
    counts = ctx.op(
        ReduceSum(keep_dims=False),
        ctx.op(Convert(destination_type=I64), kept),
        i64(ctx, [1], "axis1_v"),
        suffix="counts",
    )
    filled = ctx.op(
        Less(),
        ctx.op(Unsqueeze(), position, i64(ctx, [0], "axis0_v")),
        ctx.op(Unsqueeze(), counts, i64(ctx, [1], "axis1")),
    )
    indices = ctx.op(Transpose(), ctx.op(NonZero(output_type=I64), filled), i64(ctx, [1, 0], "swap"), suffix="indices")
    values = ctx.op(GatherND(batch_dims=0), ordered, indices, suffix="values")
    rows = ctx.op(
        Gather(batch_dims=0), ctx.op(ShapeOf(output_type=I64), candidates), i64(ctx, [0], "first"), i64(ctx, 0, "axis0")
    )
    widest = ctx.op(
        ReduceMax(keep_dims=True),
        ctx.op(Concat(axis=0), counts, i64(ctx, [0], "no_rows")),
        i64(ctx, [0], "axis0_w"),
        suffix="widest",
    )
    return [indices, values, ctx.op(Concat(axis=0), rows, widest, suffix="shape")]


