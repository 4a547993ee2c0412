"""Indexing lowerings every front end shares: ScatterNd into zeros and the row count of
sorted segment ids (TensorFlow's and TFLite's ScatterNd and SegmentSum)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from irconv.frontend import i64
from irconv.ops import Op
from irconv.types import ElementType

from irconv_opset import Add, Broadcast, Concat, Convert, Reshape, ScatterNDUpdate
from irconv_opset.lowering.reduction import Reduction

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import OutPort


def to_i64(ctx: ExtractContext, port: OutPort, suffix: str) -> OutPort:
    """``port`` converted to i64 (indices, counts and shapes computed in one type)."""
    return ctx.op(Convert(destination_type=ElementType.i64), port, suffix=suffix)


def scatter_nd_into_zeros(
    ctx: ExtractContext, indices: OutPort, updates: OutPort, shape: OutPort, dtype: np.dtype, suffix: str | None = None
) -> OutPort:
    """Zeros of ``shape`` (any integer type) with ``updates`` added in at the index tuples
    ``indices`` [..., K]; repeated indices sum."""
    shape = to_i64(ctx, shape, "shape")
    zeros = ctx.op(Broadcast(mode="numpy"), ctx.const(np.zeros((), dtype), suffix="zero"), shape, suffix="zeros")
    return ctx.op(ScatterNDUpdate(reduction="sum"), zeros, indices, updates, suffix=suffix)


SCATTER_ND_INTO_ZEROS_OPS: tuple[type[Op], ...] = (Convert, Broadcast, ScatterNDUpdate)


def segment_count(ctx: ExtractContext, ids: OutPort, suffix: str) -> OutPort:
    """``max(ids) + 1`` as i64 [1] for sorted segment ids (0 when there are none): the
    rows a sorted segment reduction gives."""
    flat = ctx.op(Reshape(special_zero=False), to_i64(ctx, ids, f"{suffix}_i64"), i64(ctx, [-1], "flat"))
    padded = ctx.op(Concat(axis=0), flat, i64(ctx, [-1], "none"), suffix=f"{suffix}_padded")
    top = ctx.op(Reduction.MAX.make(True), padded, i64(ctx, [0], "axis0"), suffix=f"{suffix}_max")
    return ctx.op(Add(), top, i64(ctx, [1], "one"), suffix=suffix)


SEGMENT_COUNT_OPS: tuple[type[Op], ...] = (Convert, Reshape, Concat, Reduction.MAX.op, Add)
