"""Determinants: MatrixDeterminant and LogMatrixDeterminant by LU with partial pivoting.

OpenVINO has no determinant op. TensorFlow (Eigen) factors each matrix with partial
pivoting; the same elimination is unrolled here over the static matrix size: at step k the
row with the largest |value| in column k (at or below the diagonal) is swapped up, the
determinant's sign flips for a swap, the pivot joins the product, and the rows below lose
their multiple of the pivot row. A zero pivot (a singular matrix) eliminates nothing.
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
    Divide,
    Equal,
    Gather,
    Greater,
    Log,
    LogicalAnd,
    Multiply,
    NotEqual,
    Select,
    Sign,
    Slice,
    Squeeze,
    Subtract,
    TopK,
    Unsqueeze,
)

#: The elimination is unrolled, about a dozen ops per row; larger matrices are refused.
MAX_MATRIX_SIZE = 64


def _lu_pivots(ctx: ExtractContext) -> tuple[OutPort, list[OutPort]]:
    """(sign [...], [pivot_k [...] for each k]) of the input's partial-pivot LU."""
    shape = ctx.input_shape(0)
    if shape is None or len(shape) < 2 or shape[-1] is None or shape[-1] != shape[-2]:
        raise ConversionError(
            f"{ctx.where()}: the matrices' size must be static and square (the input's shape is {shape}); "
            "give the input shape with --input"
        )
    n, batch = int(shape[-1]), len(shape) - 2
    if n > MAX_MATRIX_SIZE:
        raise ConversionError(f"{ctx.where()}: {n}x{n} matrices; at most {MAX_MATRIX_SIZE}x{MAX_MATRIX_SIZE} convert")
    x = ctx.input(0)
    rows = i64(ctx, np.arange(n), "rows")
    zero = const_like(ctx, 0, x, "zero")
    sign = const_like(ctx, 1, x, "one")
    pivots = []
    for k in range(n):
        column = ctx.op(Gather(batch_dims=0), x, i64(ctx, k, f"col{k}"), i64(ctx, -1, "last"), suffix=f"column{k}")
        below = ctx.op(
            Slice(), column, i64(ctx, [k], f"k{k}"), i64(ctx, [n], "n"), i64(ctx, [1], "step"), i64(ctx, [-1], "axes")
        )
        largest = ctx.add(
            TopK(axis=-1, mode="max", sort="value", index_element_type=ElementType.i64, stable=True),
            [ctx.op(Abs(), below, suffix=f"magnitude{k}"), i64(ctx, 1, "one_k")],
            suffix=f"pivot_row{k}",
        ).out_port(1)
        chosen = ctx.op(Add(), largest, i64(ctx, k, f"offset{k}"), suffix=f"chosen{k}")
        here = i64(ctx, k, f"here{k}")
        order = ctx.op(
            Select(),
            ctx.op(Equal(), rows, here, suffix=f"is_k{k}"),
            chosen,
            ctx.op(Select(), ctx.op(Equal(), rows, chosen, suffix=f"is_chosen{k}"), here, rows, suffix=f"swap{k}"),
            suffix=f"order{k}",
        )
        x = ctx.op(Gather(batch_dims=batch), x, order, i64(ctx, batch, "row_axis"), suffix=f"swapped{k}")
        swapped = ctx.op(NotEqual(), chosen, here, suffix=f"moved{k}")
        flip = ctx.op(Select(), swapped, const_like(ctx, -1, x, "minus_one"), const_like(ctx, 1, x, "one"))
        sign = ctx.op(Multiply(), sign, _squeezed_last(ctx, flip, batch, f"flip{k}"), suffix=f"sign{k}")
        pivot_row = ctx.op(Gather(batch_dims=0), x, i64(ctx, k, f"row{k}"), i64(ctx, -2, "row_dim"))
        pivot = ctx.op(Gather(batch_dims=0), pivot_row, i64(ctx, k, f"col{k}"), i64(ctx, -1, "last"))
        pivots.append(pivot)
        if k == n - 1:
            break
        column = ctx.op(Gather(batch_dims=0), x, i64(ctx, k, f"col{k}"), i64(ctx, -1, "last"), suffix=f"after{k}")
        ratio = ctx.op(Divide(), column, ctx.op(Unsqueeze(), pivot, i64(ctx, [-1], "last_axis")), suffix=f"ratio{k}")
        usable = ctx.op(
            LogicalAnd(),
            ctx.op(Greater(), rows, here, suffix=f"below{k}"),
            ctx.op(NotEqual(), ctx.op(Unsqueeze(), pivot, i64(ctx, [-1], "last_axis")), zero, suffix=f"nonzero{k}"),
        )
        factors = ctx.op(Select(), usable, ratio, zero, suffix=f"factors{k}")
        update = ctx.op(
            Multiply(),
            ctx.op(Unsqueeze(), factors, i64(ctx, [-1], "last_axis")),
            ctx.op(Unsqueeze(), pivot_row, i64(ctx, [-2], "row_axis_new")),
            suffix=f"update{k}",
        )
        x = ctx.op(Subtract(), x, update, suffix=f"eliminated{k}")
    return sign, pivots


def _squeezed_last(ctx: ExtractContext, port: OutPort, batch: int, suffix: str) -> OutPort:
    """A [..., 1] TopK-derived tensor as [...] (a scalar for a single matrix)."""
    return ctx.op(Squeeze(), port, i64(ctx, [-1] if batch else [0], "last_axis_squeezed"), suffix=suffix)


def _empty_batch(ctx: ExtractContext) -> OutPort | None:
    """No matrices at all (a statically empty batch): an empty result, computed by nothing
    (Gather-8's constant evaluation cannot take batch dims with no items)."""
    shape = ctx.input_shape(0)
    if shape is None or 0 not in shape[:-2] or None in shape[:-2]:
        return None
    return ctx.const(np.zeros(shape[:-2], ctx.input_type(0).numpy), suffix="empty")


@extractor("tf", "MatrixDeterminant", produces=[TopK, Gather, Select, Divide, Multiply, Subtract, Abs, Add, Equal, Greater, LogicalAnd, NotEqual, Slice, Squeeze, Unsqueeze])
def _determinant(node: Node, ctx: ExtractContext) -> list[OutPort]:
    empty = _empty_batch(ctx)
    if empty is not None:
        return [empty]
    sign, pivots = _lu_pivots(ctx)
    product = sign
    for k, pivot in enumerate(pivots):
        product = ctx.op(Multiply(), product, pivot, suffix=f"product{k}")
    return [product]


@extractor("tf", "LogMatrixDeterminant", produces=[TopK, Gather, Select, Divide, Multiply, Log, Abs, Add, Equal, Greater, LogicalAnd, NotEqual, Sign, Slice, Squeeze, Subtract, Unsqueeze])
def _log_determinant(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(sign, log|det|): the sign of the pivots' product, the sum of their log magnitudes."""
    empty = _empty_batch(ctx)
    if empty is not None:
        return [empty, empty]
    sign, pivots = _lu_pivots(ctx)
    total = const_like(ctx, 0, ctx.input(0), "zero")
    for k, pivot in enumerate(pivots):
        sign = ctx.op(Multiply(), sign, ctx.op(Sign(), pivot), suffix=f"sign_after{k}")
        total = ctx.op(Add(), total, ctx.op(Log(), ctx.op(Abs(), pivot)), suffix=f"log_sum{k}")
    return [sign, total]


