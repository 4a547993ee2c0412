"""CombinedNonMaxSuppression: per-class NMS, then each image's best detections over all classes.

One NonMaxSuppression-9 runs every (image, class) pair as its own batch item, so per-class
boxes (q = C) and shared ones (q = 1, broadcast to each class) take the same path. The kept
scores are scattered into a per-image row of C*N slots (class-major, the rest at the lowest
float), and TopK picks each image's ``max_total_size`` best; slots past the image's number
of kept boxes are zeros, as TensorFlow pads.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64, input_scalar
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Clamp,
    Convert,
    Divide,
    Gather,
    Less,
    Minimum,
    Multiply,
    Pad,
    Range,
    Reshape,
    ScatterNDUpdate,
    Select,
    ShapeOf,
    TopK,
    Transpose,
    Unsqueeze,
)
from irconv_opset.lowering.nms import COLUMN_OPS, SUPPRESS_OPS, column, suppress

I64, F32, I32 = ElementType.i64, ElementType.f32, ElementType.i32


@extractor("tf", "CombinedNonMaxSuppression", produces=[*SUPPRESS_OPS, *COLUMN_OPS, Transpose, Broadcast, Reshape, Gather, ShapeOf, Multiply, Add,
                  ScatterNDUpdate, Unsqueeze, Divide, Minimum, TopK, Range, Less, Select, Convert, Clamp, Pad])
def _combined_nms(node: Node, ctx: ExtractContext) -> list[OutPort]:
    shape = ctx.input_shape(0)
    classes = (ctx.input_shape(1) or (None, None, None))[-1]
    if shape is None or len(shape) != 4 or shape[1] is None or shape[2] is None or classes is None:
        raise ConversionError(
            f"{ctx.where()}: the number of boxes and classes must be static (boxes {shape}, "
            f"scores {ctx.input_shape(1)}); give the input shapes with --input"
        )
    count, shared = int(shape[1]), shape[2] == 1
    per_class = int(input_scalar(ctx, 2, "max_output_size_per_class"))
    total = int(input_scalar(ctx, 3, "max_total_size"))
    if ctx.attrs.bool("pad_per_class", False):
        total = min(total, per_class * classes)
    slots = classes * count
    picked = min(total, slots)

    boxes = ctx.op(Transpose(), ctx.input(0), i64(ctx, [0, 2, 1, 3], "class_major"), suffix="class_major_boxes")
    if shared:
        boxes = ctx.op(Broadcast(mode="bidirectional"), boxes, i64(ctx, [1, classes, 1, 1], "per_class"))
    pairs = ctx.op(Reshape(special_zero=False), boxes, i64(ctx, [-1, count, 4], "pair_boxes"), suffix="pair_boxes")
    scores = ctx.op(Transpose(), ctx.input(1), i64(ctx, [0, 2, 1], "class_major"), suffix="class_major_scores")
    pair_scores = ctx.op(Reshape(special_zero=False), scores, i64(ctx, [-1, 1, count], "pair_scores"))
    nms = suppress(ctx, pairs, pair_scores, i64(ctx, per_class, "per_class"), ctx.input(4), ctx.input(5),
                   ctx.const(np.float32(0)))
    pair = column(ctx, nms.out_port(0), 0, "pair")
    box = column(ctx, nms.out_port(0), 2, "box")
    kept_scores = column(ctx, nms.out_port(1), 2, "kept_scores")

    images = ctx.op(
        Gather(batch_dims=0),
        ctx.op(ShapeOf(output_type=I64), ctx.input(1)),
        i64(ctx, [0], "first"),
        i64(ctx, 0, "axis0"),
    )
    all_slots = ctx.op(
        Reshape(special_zero=False), ctx.op(Multiply(), images, i64(ctx, [slots], "slots")), i64(ctx, [1], "one")
    )
    lowest = ctx.const(np.float32(np.finfo(np.float32).min), suffix="lowest")
    board = ctx.op(Broadcast(mode="numpy"), lowest, all_slots, suffix="empty_board")
    slot = ctx.op(Add(), ctx.op(Multiply(), pair, i64(ctx, count, "count")), box, suffix="slot")
    board = ctx.op(ScatterNDUpdate(), board, ctx.op(Unsqueeze(), slot, i64(ctx, [1], "axis1")), kept_scores)
    board = ctx.op(Reshape(special_zero=False), board, i64(ctx, [-1, slots], "per_image"), suffix="board")

    image_of = ctx.op(Divide(), pair, i64(ctx, classes, "classes"), suffix="image_of_pair")
    zeros = ctx.op(Broadcast(mode="numpy"), i64(ctx, 0, "zero"), images, suffix="no_detections")
    ones = ctx.op(
        Broadcast(mode="numpy"), i64(ctx, 1, "one_each"), ctx.op(ShapeOf(output_type=I64), pair), suffix="ones"
    )
    kept = ctx.op(ScatterNDUpdate(reduction="sum"), zeros, ctx.op(Unsqueeze(), image_of, i64(ctx, [1], "axis1")), ones)
    valid = ctx.op(Minimum(), kept, i64(ctx, picked, "picked"), suffix="valid")

    best = ctx.add(
        TopK(axis=1, mode="max", sort="value", index_element_type=I64, stable=True),
        [board, i64(ctx, picked, "k")],
        suffix="best",
    )
    best_scores, best_slots = best.out_port(0), best.out_port(1)
    rank = ctx.op(Range(output_type=I64), i64(ctx, 0, "zero"), i64(ctx, picked, "picked_s"), i64(ctx, 1, "one_s"))
    real = ctx.op(
        Less(), ctx.op(Unsqueeze(), rank, i64(ctx, [0], "axis0")), ctx.op(Unsqueeze(), valid, i64(ctx, [1], "axis1"))
    )
    zero_f = ctx.const(np.float32(0), suffix="zero_f")
    out_scores = ctx.op(Select(), real, best_scores, zero_f, suffix="scores")
    class_id = ctx.op(
        Convert(destination_type=F32), ctx.op(Divide(), best_slots, i64(ctx, count, "count")), suffix="class_f"
    )
    out_classes = ctx.op(Select(), real, class_id, zero_f, suffix="classes")
    flat_boxes = ctx.op(
        Reshape(special_zero=False), pairs, i64(ctx, [-1, slots, 4], "image_boxes"), suffix="image_boxes"
    )
    out_boxes = ctx.op(Gather(batch_dims=1), flat_boxes, best_slots, i64(ctx, 1, "axis1_s"), suffix="gathered_boxes")
    out_boxes = ctx.op(Select(), ctx.op(Unsqueeze(), real, i64(ctx, [2], "axis2")), out_boxes, zero_f, suffix="boxes")
    if ctx.attrs.bool("clip_boxes", True):
        out_boxes = ctx.op(Clamp(min=0.0, max=1.0), out_boxes, suffix="clipped")
    if total > picked:  # fewer slots than the requested size: zeros after them
        more = total - picked
        out_boxes = ctx.op(Pad(pad_mode="constant"), out_boxes, i64(ctx, [0, 0, 0], "b3"), i64(ctx, [0, more, 0], "e3"))
        out_scores = ctx.op(Pad(pad_mode="constant"), out_scores, i64(ctx, [0, 0], "b2"), i64(ctx, [0, more], "e2"))
        out_classes = ctx.op(Pad(pad_mode="constant"), out_classes, i64(ctx, [0, 0], "b2"), i64(ctx, [0, more], "e2"))
    return [out_boxes, out_scores, out_classes, ctx.op(Convert(destination_type=I32), valid, suffix="valid_detections")]


