"""The ``TFLite_Detection_PostProcess`` custom operator (SSD heads): box decoding against
anchors, then non-maximum suppression, as NonMaxSuppression-9 and gathers; and the
NON_MAX_SUPPRESSION_V4/V5 builtins (one class of boxes, indices padded with zeros).

Inputs: box encodings [1, N, 4] (ty, tx, th, tw), class scores [1, N, background + C],
anchors [N, 4] (y, x, h, w). Outputs, ``max_detections`` rows each, zero past the count:
boxes [1, D, 4] (ymin, xmin, ymax, xmax), classes [1, D] and scores [1, D] (f32), and the
count [1] (f32).

Fast NMS (``use_regular_nms`` false): each box keeps its best class, one class-agnostic
suppression. Regular NMS: suppression per class, ``detections_per_class`` each, then the
best ``max_detections`` of all.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, f32, i64, input_constant
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Concat,
    Convert,
    Exp,
    Gather,
    Minimum,
    Multiply,
    NonMaxSuppression,
    Pad,
    ReduceMax,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
    TopK,
    Transpose,
    Unsqueeze,
)
from irconv_opset.lowering.nms import SINGLE_CLASS_NMS_OPS, single_class_nms

from irconv_tflite.loader import CUSTOM


def _decode(ctx: ExtractContext, encodings: OutPort, anchors: np.ndarray) -> OutPort:
    """[N, 4] corner boxes from [N, 4] encodings and constant [N, 4] anchors."""
    a = ctx.attrs
    scales = np.array([a.float("y_scale"), a.float("x_scale"), a.float("h_scale"), a.float("w_scale")], np.float32)
    anchors = np.asarray(anchors, np.float32)
    scaled = ctx.op(Multiply(), encodings, f32(ctx, 1 / scales, "inverse_scales"), suffix="scaled")
    centre = ctx.op(Slice(), scaled, i64(ctx, [0]), i64(ctx, [2]), i64(ctx, [1]), i64(ctx, [1]), suffix="centre")
    size = ctx.op(Slice(), scaled, i64(ctx, [2]), i64(ctx, [4]), i64(ctx, [1]), i64(ctx, [1]), suffix="size")
    centre = ctx.op(Add(), ctx.op(Multiply(), centre, f32(ctx, anchors[:, 2:], "anchor_size"), suffix="offset"),
                    f32(ctx, anchors[:, :2], "anchor_centre"), suffix="centres")
    half = ctx.op(Multiply(), ctx.op(Exp(), size, suffix="exp"), f32(ctx, anchors[:, 2:] / 2, "half_anchor"),
                  suffix="half_size")
    low = ctx.op(Subtract(), centre, half, suffix="low")
    high = ctx.op(Add(), centre, half, suffix="high")
    return ctx.op(Concat(axis=1), low, high, suffix="boxes")


def _pad_rows(ctx: ExtractContext, rows: OutPort, count: int, rank: int, suffix: str,
              dtype: type = np.float32) -> OutPort:
    """``rows`` (first axis <= count) padded with zeros of ``dtype`` to ``count`` rows."""
    length = ctx.op(Gather(), ctx.op(ShapeOf(), rows, suffix=f"{suffix}_shape"), i64(ctx, [0]), i64(ctx, 0),
                    suffix=f"{suffix}_length")
    missing = ctx.op(Subtract(), i64(ctx, [count]), length, suffix=f"{suffix}_missing")
    ends = ctx.op(Concat(axis=0), missing, i64(ctx, [0] * (rank - 1)), suffix=f"{suffix}_pads")
    zero = ctx.const(np.zeros((), dtype), suffix=f"{suffix}_zero")
    return ctx.op(Pad(pad_mode="constant"), rows, i64(ctx, [0] * rank), ends, zero, suffix=suffix)


@extractor("tflite", "TFLite_Detection_PostProcess", domain=CUSTOM,
        produces=[Add, Concat, Convert, Exp, Gather, Minimum, Multiply, NonMaxSuppression, Pad, ReduceMax, ShapeOf,
                  Slice, Squeeze, Subtract, TopK, Transpose, Unsqueeze])
def detection_postprocess(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    detections = a.int("max_detections")
    classes = a.int("num_classes")
    regular = a.bool("use_regular_nms", False)
    if not regular and a.int("max_classes_per_detection", 1) != 1:
        raise a.bad("max_classes_per_detection", a.int("max_classes_per_detection"), "only 1 class per box is read")
    anchors = input_constant(ctx, 2, "the anchors")
    boxes = _decode(ctx, ctx.op(Squeeze(), ctx.input(0), i64(ctx, [0]), suffix="encodings"), anchors)
    # the class scores without the background columns, as [1, C, N]
    total = ctx.input_shape(1)
    with_background = int(total[-1]) if total and total[-1] is not None else classes + 1
    scores = ctx.op(Slice(), ctx.input(1), i64(ctx, [with_background - classes]), i64(ctx, [with_background]),
                    i64(ctx, [1]), i64(ctx, [2]), suffix="class_scores")
    scores = ctx.op(Transpose(), scores, i64(ctx, [0, 2, 1]), suffix="scores_by_class")
    best_class = None
    if not regular:  # one class per box: its best score, and which class that is
        top = ctx.add(TopK(axis=1, mode="max", sort="none", index_element_type=ElementType.i32),
                      [scores, i64(ctx, 1)], suffix="best_class")
        scores = top.out_port(0)
        best_class = ctx.op(Squeeze(), top.out_port(1), i64(ctx, [0, 1]), suffix="class_of_box")
    per_class = detections if not regular else a.int("detections_per_class", 100)
    nms = ctx.add(NonMaxSuppression(box_encoding="corner", sort_result_descending=True,
                                    output_type=ElementType.i32),
                  [ctx.op(Unsqueeze(), boxes, i64(ctx, [0]), suffix="nms_boxes"), scores,
                   i64(ctx, [per_class], "max_per_class"), f32(ctx, [a.float("nms_iou_threshold")], "iou"),
                   f32(ctx, [a.float("nms_score_threshold")], "score_threshold")], suffix="nms")
    kept = ctx.op(Slice(), nms.out_port(0), i64(ctx, [0]), i64(ctx, [detections]), i64(ctx, [1]), i64(ctx, [0]),
                  suffix="kept")
    kept_scores = ctx.op(Slice(), nms.out_port(1), i64(ctx, [0]), i64(ctx, [detections]), i64(ctx, [1]),
                         i64(ctx, [0]), suffix="kept_scores")
    box_index = ctx.op(Gather(), kept, i64(ctx, 2), i64(ctx, 1), suffix="box_index")
    if best_class is None:
        class_index = ctx.op(Gather(), kept, i64(ctx, 1), i64(ctx, 1), suffix="class_index")
    else:
        class_index = ctx.op(Gather(), best_class, box_index, i64(ctx, 0), suffix="class_index")
    picked_boxes = ctx.op(Gather(), boxes, box_index, i64(ctx, 0), suffix="picked_boxes")
    picked_scores = ctx.op(Gather(), kept_scores, i64(ctx, 2), i64(ctx, 1), suffix="picked_scores")
    picked_classes = ctx.op(Convert(destination_type=ElementType.f32), class_index, suffix="picked_classes")
    count = ctx.op(Convert(destination_type=ElementType.f32),
                   ctx.op(Gather(), ctx.op(ShapeOf(output_type=ElementType.i32), kept, suffix="kept_shape"),
                          i64(ctx, [0]), i64(ctx, 0), suffix="count_i32"), suffix="count")
    outputs = []
    for rows, rank, name in ((picked_boxes, 2, "boxes"), (picked_classes, 1, "classes"), (picked_scores, 1, "scores")):
        padded = _pad_rows(ctx, rows, detections, rank, name)
        outputs.append(ctx.op(Unsqueeze(), padded, i64(ctx, [0]), suffix=f"{name}_batch"))
    return [*outputs, count]


def non_max_suppression(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """NON_MAX_SUPPRESSION_V4 (boxes [N, 4], scores [N], max_output_size, iou_threshold,
    score_threshold) and V5 (and soft_nms_sigma): the indices of the boxes kept, best
    first, padded with zeros to max_output_size ([and their scores,] then how many are
    valid), as TensorFlow's NonMaxSuppressionV4/V5 with padding."""
    with_scores = ctx.source_op.op_type == "NON_MAX_SUPPRESSION_V5"
    picked = single_class_nms(ctx, ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4),
                              ctx.input(5) if with_scores else None, pad=True)
    return [picked.indices, picked.scores, picked.valid] if with_scores else [picked.indices, picked.valid]


NON_MAX_SUPPRESSIONS = aliases("tflite", ["NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5"], non_max_suppression,
                               produces=[*SINGLE_CLASS_NMS_OPS])
