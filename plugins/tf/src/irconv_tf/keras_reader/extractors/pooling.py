"""Pooling layers: Max/Average pooling 1D-3D and their global forms."""

from __future__ import annotations

from collections.abc import Callable

from irconv import ExtractContext
from irconv.frontend import i64
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset import AvgPool, MaxPool_v1, ReduceMax, ReduceMean

from irconv_tf.keras_reader.extractors._base import channels_last, int_tuple, keras, laid_out, layout_mark


def _pooling(spatial: int, average: bool) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        kernel = int_tuple(ctx, "pool_size", spatial)
        strides = kernel if ctx.attrs.get("strides") is None else int_tuple(ctx, "strides", spatial)
        same = ctx.attrs.choice("padding", ["valid", "same"], "valid") == "same"
        zeros = (0,) * spatial
        common = {
            "strides": strides,
            "kernel": kernel,
            "pads_begin": zeros,
            "pads_end": zeros,
            "auto_pad": "same_upper" if same else "valid",
            "rounding_type": "floor",
        }
        # Keras averages over the window's values inside the input only (TensorFlow's SAME)
        op: Op = AvgPool(exclude_pad=True, **common) if average else MaxPool_v1(**common)
        return [laid_out(ctx, op, [ctx.input(0)], layout_mark(ctx, spatial + 2))]

    return extract


def _global(spatial: int, make: Callable[[bool], Op]) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        axes = list(range(1, 1 + spatial)) if channels_last(ctx) else list(range(2, 2 + spatial))
        keep = ctx.attrs.bool("keepdims", False)
        return [ctx.op(make(keep), ctx.input(0), i64(ctx, axes, "axes"), suffix="reduce")]

    return extract


POOLING = [
    keras(f"{kind}Pooling{n}D", _pooling(n, kind == "Average"), produces=[AvgPool if kind == "Average" else MaxPool_v1])
    for kind in ("Max", "Average")
    for n in (1, 2, 3)
]
GLOBAL_POOLING = [
    keras(f"Global{kind}Pooling{n}D", _global(n, make), produces=[op])
    for kind, op, make in (
        ("Average", ReduceMean, lambda keep: ReduceMean(keep_dims=keep)),
        ("Max", ReduceMax, lambda keep: ReduceMax(keep_dims=keep)),
    )
    for n in (1, 2, 3)
]
