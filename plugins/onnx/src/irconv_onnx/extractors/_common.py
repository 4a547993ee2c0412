"""Helpers shared by the extractor modules."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import i64
from irconv.graph import OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Convert,
    CumSum,
    Equal,
    FloorMod,
    Gather,
    Maximum,
    Multiply,
    Range,
    Reshape,
    ScatterElementsUpdate,
    Select,
    ShapeOf,
    Squeeze,
    Subtract,
    TopK,
)
from irconv_opset.build import shape_of

#: What ``all_axes`` may build.
ALL_AXES_OPS = (ShapeOf, Squeeze, Range)
#: What ``axes_mask`` may build.
AXES_MASK_OPS = (Convert, FloorMod, Broadcast, ShapeOf, ScatterElementsUpdate)
#: What ``unsqueeze_dynamic_axes`` may build.
UNSQUEEZE_DYNAMIC_AXES_OPS = (*AXES_MASK_OPS, Subtract, CumSum, Maximum, Gather, Select, Equal, Reshape)
#: What ``drop_dynamic_axes`` may build.
DROP_DYNAMIC_AXES_OPS = (*AXES_MASK_OPS, Add, Multiply, TopK, Gather, Reshape)


def node_inputs(ctx: ExtractContext) -> list[OutPort]:
    """Every input of the node, in order, for an op that takes them as they are (a hole is an error)."""
    return [ctx.input(idx) for idx in range(len(ctx.inputs))]


def opset(ctx: ExtractContext) -> int:
    """The version of the node's domain that the model imports."""
    return ctx.source_op.opset_version


def et_of_onnx(code: int, where: str) -> ElementType:
    from irconv_onnx.tensors import element_type

    return element_type(code, where)


def axes_mask(ctx: ExtractContext, axes: OutPort, rank: int) -> OutPort:
    """An i64 [rank] vector with 1 at the (possibly negative) ``axes`` and 0 elsewhere."""
    axes = ctx.op(Convert(destination_type=ElementType.i64), axes, suffix="axes_i64")
    axes = ctx.op(FloorMod(), axes, i64(ctx, rank), suffix="axes_norm")
    ones = ctx.op(Broadcast(), i64(ctx, 1), shape_of(ctx, axes, "axes_count"), suffix="ones")
    return ctx.op(ScatterElementsUpdate(), i64(ctx, np.zeros(rank, np.int64)), axes, ones, i64(ctx, 0),
                  suffix="axes_mask")


def unsqueeze_dynamic_axes(ctx: ExtractContext, x: OutPort, axes: OutPort, rank: int, count: int) -> OutPort:
    """Unsqueeze by run-time axes as a Reshape whose target has a static length (rank + count)."""
    out_rank = rank + count
    is_new = axes_mask(ctx, axes, out_rank)
    kept = ctx.op(Subtract(), i64(ctx, np.ones(out_rank, np.int64)), is_new, suffix="kept")
    source = ctx.op(Subtract(), ctx.op(CumSum(), kept, i64(ctx, 0), suffix="kept_cumsum"), i64(ctx, 1),
                    suffix="source_dim")
    source = ctx.op(Maximum(), source, i64(ctx, 0), suffix="source_dim_clamped")
    dims = ctx.op(Gather(), shape_of(ctx, x), source, i64(ctx, 0), suffix="dims")
    target = ctx.op(Select(), ctx.op(Equal(), is_new, i64(ctx, 1), suffix="is_new"), i64(ctx, 1), dims,
                    suffix="target")
    return ctx.op(Reshape(special_zero=False), x, target)


def drop_dynamic_axes(ctx: ExtractContext, kept_dims: OutPort, axes: OutPort, rank: int, count: int) -> OutPort:
    """Reshape a keep_dims result to drop run-time ``axes`` (target length rank - count is static)."""
    mask = axes_mask(ctx, axes, rank)
    keys = ctx.op(Add(), i64(ctx, np.arange(rank, dtype=np.int64)), ctx.op(Multiply(), mask, i64(ctx, rank)),
                  suffix="keys")
    top = ctx.add(TopK(axis=0, mode="min", sort="value", index_element_type=ElementType.i64),
                  [keys, i64(ctx, rank - count)], "kept_axes")
    dims = ctx.op(Gather(), shape_of(ctx, kept_dims), top.out_port(1), i64(ctx, 0), suffix="dims")
    return ctx.op(Reshape(special_zero=False), kept_dims, dims)
