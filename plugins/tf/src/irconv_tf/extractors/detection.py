"""Object-detection TF ops: non-maximum suppression and crop-and-resize."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import aliases, extractor, i64, input_constant
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Floor,
    Gather,
    GatherND,
    Greater,
    Less,
    LogicalOr,
    Maximum,
    Minimum,
    Multiply,
    Reshape,
    Round,
    Select,
    ShapeOf,
    Subtract,
)
from irconv_opset.lowering.nms import SINGLE_CLASS_NMS_OPS, single_class_nms


def _nms(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """NonMaxSuppressionV2..V5 (one batch, one class) -> NonMaxSuppression-9."""
    version = int(ctx.source_op.op_type.removeprefix("NonMaxSuppressionV"))
    return lower_nms(ctx, version, ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3))


def lower_nms(
    ctx: ExtractContext, version: int, boxes: OutPort, scores: OutPort, max_output_size: OutPort, iou: OutPort
) -> list[OutPort]:
    """NonMaxSuppressionV``version``'s outputs from its first four inputs (V3+ read the score
    threshold, V5 the soft-NMS sigma from the node's inputs 4 and 5)."""
    pad = version >= 4 and ctx.attrs.bool("pad_to_max_output_size", False)
    picked = single_class_nms(ctx, boxes, scores, max_output_size, iou, ctx.input(4) if version >= 3 else None,
                              ctx.input(5) if version >= 5 else None, pad=pad)
    if version == 4:
        return [picked.indices, picked.valid]
    if version == 5:
        return [picked.indices, picked.scores, picked.valid]
    return [picked.indices]


@extractor("tf", "CropAndResize", produces=[GatherND, Multiply, Add, Broadcast, Concat, Convert, Floor, Gather, Greater, Less, LogicalOr, Maximum, Minimum, Reshape, Select, ShapeOf, Subtract, Round])
def _crop_and_resize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Bilinear (or nearest) samples at TF's crop coordinates, gathered from the image.
    For crop size P > 1: y(k, p) = y1_k (H-1) + p (y2_k - y1_k)(H-1)/(P-1); for P = 1 the
    box centre. Samples outside [0, H-1] x [0, W-1] take ``extrapolation_value``.
    """
    method = ctx.attrs.str("method", "bilinear")
    if method not in ("bilinear", "nearest"):
        raise ConversionError(f"{ctx.where()}: CropAndResize method {quoted(method)} is not supported")
    crop = [int(v) for v in input_constant(ctx, 3, "crop_size").reshape(-1)]
    image, boxes = ctx.input(0), ctx.input(1)
    f32 = ElementType.f32
    shape = ctx.op(Convert(destination_type=f32), ctx.op(ShapeOf(), image, suffix="image_shape"), suffix="shape_f")
    one = ctx.const(np.float32(1.0), suffix="one")

    def extent(axis: int) -> OutPort:  # H-1 or W-1 as a float scalar
        size = ctx.op(Gather(batch_dims=0), shape, i64(ctx, axis, f"dim{axis}"), i64(ctx, 0, "ax0"))
        return ctx.op(Subtract(), size, one, suffix=f"last{axis}")

    def coords(start_col: int, end_col: int, size: int, axis: int) -> tuple[OutPort, OutPort]:
        last = extent(axis)
        first = ctx.op(Gather(batch_dims=0), boxes, i64(ctx, [start_col], f"c{start_col}"), i64(ctx, 1, "ax1"))
        final = ctx.op(Gather(batch_dims=0), boxes, i64(ctx, [end_col], f"c{end_col}"), i64(ctx, 1, "ax1"))
        if size > 1:
            steps = ctx.const(np.arange(size, dtype=np.float32) / np.float32(size - 1), suffix=f"steps{axis}")
            span = ctx.op(Multiply(), ctx.op(Subtract(), final, first), steps)  # [K, size]
            pos = ctx.op(Multiply(), ctx.op(Add(), first, span), last, suffix=f"pos{axis}")
        else:
            mid = ctx.op(Multiply(), ctx.op(Add(), first, final), ctx.const(np.float32(0.5)))
            pos = ctx.op(Multiply(), mid, last, suffix=f"pos{axis}")
        outside = ctx.op(
            LogicalOr(),
            ctx.op(Less(), pos, ctx.const(np.float32(0.0))),
            ctx.op(Greater(), pos, last),
            suffix=f"out{axis}",
        )
        return pos, outside

    ys, y_out = coords(0, 2, crop[0], 1)  # [K, ch]
    xs, x_out = coords(1, 3, crop[1], 2)  # [K, cw]

    def as_index(value: OutPort, axis: int) -> OutPort:
        clamped = ctx.op(Minimum(), ctx.op(Maximum(), value, ctx.const(np.float32(0.0))), extent(axis))
        return ctx.op(Convert(destination_type=ElementType.i32), clamped)

    def grid(part: OutPort, shape4: list[int]) -> OutPort:
        """[K, n] indices -> [K, ch, cw, 1] broadcast over the crop grid."""
        shaped = ctx.op(Reshape(special_zero=True), part, i64(ctx, shape4, "grid_shape"))
        return ctx.op(Broadcast(mode="bidirectional"), shaped, i64(ctx, [1, crop[0], crop[1], 1], "grid"))

    batch = ctx.op(Convert(destination_type=ElementType.i32), ctx.input(2), suffix="box_ind")
    batch_grid = grid(batch, [0, 1, 1, 1])

    def sample(y_index: OutPort, x_index: OutPort) -> OutPort:
        idx = ctx.op(Concat(axis=-1), batch_grid, grid(y_index, [0, crop[0], 1, 1]), grid(x_index, [0, 1, crop[1], 1]))
        return ctx.op(GatherND(batch_dims=0), image, idx, suffix="sample")

    if method == "nearest":
        y_near = as_index(ctx.op(Round(mode="half_away_from_zero"), ys), 1)
        x_near = as_index(ctx.op(Round(mode="half_away_from_zero"), xs), 2)
        result = sample(y_near, x_near)
    else:
        y_top, x_left = ctx.op(Floor(), ys), ctx.op(Floor(), xs)
        y_lerp = ctx.op(Reshape(special_zero=True), ctx.op(Subtract(), ys, y_top), i64(ctx, [0, crop[0], 1, 1], "yl"))
        x_lerp = ctx.op(Reshape(special_zero=True), ctx.op(Subtract(), xs, x_left), i64(ctx, [0, 1, crop[1], 1], "xl"))
        top, bottom = as_index(y_top, 1), as_index(ctx.op(Add(), y_top, one), 1)
        left, right = as_index(x_left, 2), as_index(ctx.op(Add(), x_left, one), 2)
        tl, tr, bl, br = sample(top, left), sample(top, right), sample(bottom, left), sample(bottom, right)
        upper = ctx.op(Add(), tl, ctx.op(Multiply(), ctx.op(Subtract(), tr, tl), x_lerp))
        lower = ctx.op(Add(), bl, ctx.op(Multiply(), ctx.op(Subtract(), br, bl), x_lerp))
        result = ctx.op(Add(), upper, ctx.op(Multiply(), ctx.op(Subtract(), lower, upper), y_lerp))
    outside = ctx.op(
        LogicalOr(),
        ctx.op(Reshape(special_zero=True), y_out, i64(ctx, [0, crop[0], 1, 1], "ym")),
        ctx.op(Reshape(special_zero=True), x_out, i64(ctx, [0, 1, crop[1], 1], "xm")),
        suffix="outside",
    )
    fill = ctx.const(np.float32(ctx.attrs.float("extrapolation_value", 0.0)), suffix="extrapolation_value")
    result = ctx.op(Convert(destination_type=f32), result, suffix="as_float")
    return [ctx.op(Select(), outside, fill, result)]


NMS = aliases("tf", [f"NonMaxSuppressionV{v}" for v in (2, 3, 4, 5)], _nms, produces=[*SINGLE_CLASS_NMS_OPS])
