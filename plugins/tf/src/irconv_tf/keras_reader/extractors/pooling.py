"""Pooling layers: Max/Average pooling 1D-3D and their global forms."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, i64
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset import AvgPool, MaxPool_v1, ReduceMax, ReduceMean
from irconv_opset.lowering.pooling import GlobalPool, PoolWindow, avg_pool, global_pool, max_pool

from irconv_tf.keras_reader.extractors._base import channels_last, int_tuple, laid_out, layout_mark, spatial_rank


def _pooling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    spatial = spatial_rank(ctx)
    average = ctx.source_op.op_type.startswith("Average")
    kernel = int_tuple(ctx, "pool_size", spatial)
    strides = kernel if ctx.attrs.get("strides") is None else int_tuple(ctx, "strides", spatial)
    same = ctx.attrs.choice("padding", ["valid", "same"], "valid") == "same"
    pool = PoolWindow.of(kernel, strides, auto_pad="same_upper" if same else "valid")
    mark = layout_mark(ctx, spatial + 2)

    def place(op: Op, inputs: list[OutPort]) -> Node:
        return laid_out(ctx, op, inputs, mark).node

    # Keras averages over the window's values inside the input only (TensorFlow's SAME)
    if average:
        return [avg_pool(ctx, ctx.input(0), pool, exclude_pad=True, place=place)]
    return [max_pool(ctx, ctx.input(0), pool, values_only=True, place=place).out_port(0)]


def _global(node: Node, ctx: ExtractContext) -> list[OutPort]:
    spatial = spatial_rank(ctx)
    kind = GlobalPool.AVG if ctx.source_op.op_type.startswith("GlobalAverage") else GlobalPool.MAX
    axes = list(range(1, 1 + spatial)) if channels_last(ctx) else list(range(2, 2 + spatial))
    keep = ctx.attrs.bool("keepdims", False)
    return [global_pool(ctx, ctx.input(0), kind, i64(ctx, axes, "axes"), keep_dims=keep, suffix="reduce")]


MAX_POOLING = aliases("keras", [f"MaxPooling{n}D" for n in (1, 2, 3)], _pooling, produces=[MaxPool_v1])
AVERAGE_POOLING = aliases("keras", [f"AveragePooling{n}D" for n in (1, 2, 3)], _pooling, produces=[AvgPool])
GLOBAL_AVERAGE_POOLING = aliases("keras", [f"GlobalAveragePooling{n}D" for n in (1, 2, 3)], _global, produces=[ReduceMean])
GLOBAL_MAX_POOLING = aliases("keras", [f"GlobalMaxPooling{n}D" for n in (1, 2, 3)], _global, produces=[ReduceMax])
