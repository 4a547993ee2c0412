"""Non-maximum suppression: the pieces every front end's NMS is made of.

OpenVINO's NonMaxSuppression-9 takes boxes [batch, boxes, 4], scores [batch, classes, boxes]
and gives (batch, class, box) rows of the kept boxes with their scores, and how many there
are. The front ends differ in how many batches and classes they have and in what they
return, but share:

- :func:`suppress`: the op itself (box encoding, max boxes per class, IoU and score
  thresholds, soft-NMS sigma);
- :func:`column`, :func:`leading`, :func:`padded`: the output rows cut and padded safely
  (the rows may be none at all, and the CPU plugin fails gathering from an empty tensor);
- :func:`single_class_nms`: one batch of one class of boxes, as TensorFlow's
  NonMaxSuppressionV2..V5 and TFLite's NON_MAX_SUPPRESSION_V4/V5 define it;
- :func:`iou_strictly_above`: for frameworks that suppress at IoU > threshold where
  OpenVINO suppresses at IoU >= threshold.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.frontend import i64
from irconv.types import ElementType

from irconv_opset import (
    Convert,
    Maximum,
    Minimum,
    Multiply,
    NonMaxSuppression,
    Pad,
    Reshape,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
)

if TYPE_CHECKING:
    from irconv import ExtractContext, OutPort
    from irconv.graph import Node


class BoxEncoding(str, enum.Enum):
    """How a box's four numbers read: two corners, or centre and size."""

    CORNER = "corner"
    CENTER = "center"


#: What :func:`suppress` builds.
SUPPRESS_OPS = (NonMaxSuppression,)
#: What :func:`column` builds.
COLUMN_OPS = (Slice, Squeeze)
#: What :func:`padded` builds.
PADDED_OPS = (ShapeOf, Subtract, Maximum, Pad)
#: What :func:`single_class_nms` builds.
SINGLE_CLASS_NMS_OPS = (*SUPPRESS_OPS, *COLUMN_OPS, *PADDED_OPS, Reshape, Convert, Minimum)
#: What :func:`iou_strictly_above` builds.
IOU_STRICTLY_ABOVE_OPS = (Convert, Multiply, Maximum)


def suppress(
    ctx: ExtractContext,
    boxes: OutPort,
    scores: OutPort,
    max_per_class: OutPort | None,
    iou: OutPort | None,
    score_threshold: OutPort | None = None,
    sigma: OutPort | None = None,
    *,
    encoding: BoxEncoding = BoxEncoding.CORNER,
    sort_descending: bool = True,
    index_type: ElementType = ElementType.i64,
    suffix: str = "NonMaxSuppression",
) -> Node:
    """NonMaxSuppression-9 over ``boxes`` [B, N, 4] and ``scores`` [B, C, N]; the node, whose
    outputs are the selected (batch, class, box) rows, their scores, and their count. The
    inputs after ``scores`` are optional in the op's order (an absent one takes its default)."""
    op = NonMaxSuppression(box_encoding=encoding.value, sort_result_descending=sort_descending,
                           output_type=index_type)
    inputs = [boxes, scores, max_per_class, iou, score_threshold, sigma]
    while inputs[-1] is None:
        inputs.pop()
    return ctx.add(op, inputs, suffix=suffix)


def column(ctx: ExtractContext, rows: OutPort, index: int, suffix: str) -> OutPort:
    """Column ``index`` of NonMaxSuppression's [n, 3] rows, by Slice: n may be 0 (nothing
    selected), and the CPU plugin dies (SIGFPE) gathering from an empty tensor."""
    axis = i64(ctx, [1], "column_axis")
    cut = ctx.op(Slice(), rows, i64(ctx, [index], f"column{index}"), i64(ctx, [index + 1], f"column{index}_end"),
                 i64(ctx, [1], "step"), axis, suffix=f"{suffix}_column")
    return ctx.op(Squeeze(), cut, axis, suffix=suffix)


def leading(ctx: ExtractContext, values: OutPort, limit: OutPort, suffix: str) -> OutPort:
    """``values[:limit]`` (``limit`` a one-element i64 tensor); safe on empty values."""
    return ctx.op(Slice(), values, i64(ctx, [0], "start"), limit, i64(ctx, [1], "step"), suffix=suffix)


def padded(ctx: ExtractContext, values: OutPort, size: OutPort, suffix: str) -> OutPort:
    """1-D ``values`` padded with zeros to ``size`` entries (a one-element i64 tensor); longer
    values are left as they are."""
    count = ctx.op(ShapeOf(), values, suffix=f"{suffix}_count")
    missing = ctx.op(Maximum(), ctx.op(Subtract(), size, count), i64(ctx, [0], "zero"), suffix=f"{suffix}_missing")
    return ctx.op(Pad(pad_mode="constant"), values, i64(ctx, [0], "pads_begin"), missing, suffix=suffix)


@dataclass(frozen=True)
class Selection:
    """What single-class NMS gives: the kept boxes' indices (i32) best first, their scores,
    and how many are valid (an i32 scalar)."""

    indices: OutPort
    scores: OutPort
    valid: OutPort


def single_class_nms(
    ctx: ExtractContext,
    boxes: OutPort,
    scores: OutPort,
    max_output_size: OutPort,
    iou: OutPort,
    score_threshold: OutPort | None = None,
    sigma: OutPort | None = None,
    *,
    pad: bool = False,
) -> Selection:
    """NMS of corner-encoded ``boxes`` [N, 4] by ``scores`` [N], at most ``max_output_size``
    boxes (a scalar or one-element tensor of any integer type, known only at run time
    perhaps); ``pad``: indices and scores padded with zeros to ``max_output_size``. No
    ``score_threshold``: every box is a candidate."""
    # boxes as [1, n, 4]: the CPU plugin needs the coordinates dimension known
    boxes = ctx.op(Reshape(special_zero=False), boxes, i64(ctx, [1, -1, 4], "box_shape"), suffix="boxes")
    scores = ctx.op(Reshape(special_zero=False), scores, i64(ctx, [1, 1, -1], "score_shape"), suffix="scores")
    max_out = ctx.op(Convert(destination_type=ElementType.i64), max_output_size, suffix="max_output_size")
    limit = ctx.op(Reshape(special_zero=False), max_out, i64(ctx, [1], "limit_shape"), suffix="limit")
    if score_threshold is None:
        score_threshold = ctx.const(np.float32(np.finfo(np.float32).min), suffix="score_threshold")
    if sigma is None:
        sigma = ctx.const(np.float32(0.0), suffix="sigma")
    # The kernel always selects at least one box (with max_output_size 0 the CPU plugin
    # leaves valid_outputs unwritten); the selection is then cut to max_output_size, which
    # is exact: greedy NMS picks in score order, so a smaller limit keeps a prefix.
    at_least_one = ctx.op(Maximum(), limit, i64(ctx, [1], "one_box"), suffix="kernel_max_output_size")
    nms = suppress(ctx, boxes, scores, at_least_one, iou, score_threshold, sigma, index_type=ElementType.i32)
    indices = leading(ctx, column(ctx, nms.out_port(0), 2, "all_indices"), limit, "indices")
    picked_scores = leading(ctx, column(ctx, nms.out_port(1), 2, "all_scores"), limit, "selected_scores")
    valid = ctx.op(Reshape(special_zero=False), nms.out_port(2), i64(ctx, [], "scalar"), suffix="kernel_valid")
    limit_i32 = ctx.op(Convert(destination_type=ElementType.i32), limit, suffix="limit_i32")
    valid = ctx.op(Minimum(), valid, ctx.op(Squeeze(), limit_i32, i64(ctx, [0], "axis0")), suffix="valid")
    if pad:
        indices = padded(ctx, indices, limit, "padded_indices")
        picked_scores = padded(ctx, picked_scores, limit, "padded_scores")
    return Selection(indices, picked_scores, valid)


def iou_strictly_above(ctx: ExtractContext, threshold: OutPort) -> OutPort:
    """An IoU threshold OpenVINO (suppressing at IoU >= threshold) applies as a framework
    suppressing at IoU > threshold does: raised to the next f32 (x * (1 + 2^-23) rounds up
    one step; at least the smallest normal float, so a threshold of 0 keeps disjoint boxes)."""
    as_f32 = ctx.op(Convert(destination_type=ElementType.f32), threshold, suffix="iou_f32")
    up = ctx.op(Multiply(), as_f32, ctx.const(np.float32(1 + 2.0**-23), suffix="one_ulp"), suffix="iou_up")
    return ctx.op(Maximum(), up, ctx.const(np.finfo(np.float32).tiny, suffix="tiny"), suffix="iou_threshold")
