"""Detection ops: _contrib_MultiBoxPrior, _contrib_MultiBoxDetection, ROIPooling,
_contrib_Proposal."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Clamp,
    Concat,
    Const,
    Convert,
    DetectionOutput,
    Equal,
    Exp,
    Gather,
    GreaterEqual,
    Multiply,
    ReduceMax,
    Reshape,
    ROIPooling,
    Select,
    Slice,
    Split,
    Subtract,
    TopK,
    Transpose,
)
from irconv_opset.build import convert_like

from irconv_mxnet.extractors import nms


def multibox_prior_values(height: int, width: int, sizes: list[float], ratios: list[float],
                          steps: tuple[float, float], offsets: tuple[float, float], clip: bool) -> np.ndarray:
    """Anchors [1, H*W*(len(sizes)+len(ratios)-1), 4] (xmin, ymin, xmax, ymax), as MXNet lays
    them out: per pixel (row-major), first every size at the first ratio, then every other
    ratio at the first size; widths scaled by H/W."""
    step_y = steps[0] if steps[0] > 0 else 1.0 / height
    step_x = steps[1] if steps[1] > 0 else 1.0 / width
    shapes = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
    half = np.asarray(
        [(s * height / width * np.sqrt(r) / 2, s / np.sqrt(r) / 2) for s, r in shapes], np.float32
    )  # [A, 2]: half width, half height
    cy = (np.arange(height, dtype=np.float32) + np.float32(offsets[0])) * np.float32(step_y)
    cx = (np.arange(width, dtype=np.float32) + np.float32(offsets[1])) * np.float32(step_x)
    cy, cx = np.meshgrid(cy, cx, indexing="ij")  # [H, W]
    cx, cy = cx[..., None], cy[..., None]  # [H, W, 1]
    boxes = np.stack([cx - half[:, 0], cy - half[:, 1], cx + half[:, 0], cy + half[:, 1]], axis=-1)
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    return boxes.reshape(1, -1, 4).astype(np.float32)


def multibox_prior(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The anchors depend on the feature map's height and width only: a constant."""
    shape = ctx.input_shape(0)
    if shape is None or len(shape) != 4 or shape[2] is None or shape[3] is None:
        raise ConversionError(f"{ctx.where()}: MultiBoxPrior needs a static feature map height and width, got {shape}")
    steps = ctx.attrs.floats("steps", [-1.0, -1.0], length=2)
    offsets = ctx.attrs.floats("offsets", [0.5, 0.5], length=2)
    values = multibox_prior_values(int(shape[2]), int(shape[3]), ctx.attrs.floats("sizes", [1.0]),
                                   ctx.attrs.floats("ratios", [1.0]), (steps[0], steps[1]), (offsets[0], offsets[1]),
                                   ctx.attrs.bool("clip", False))
    return [ctx.const(values, suffix="anchors")]


def multibox_detection(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MultiBoxDetection as DetectionOutput, rearranged to MXNet's [1, A, 6] rows
    (class - 1, score, xmin, ymin, xmax, ymax; -1 rows after the detections).

    MXNet keeps one class per anchor (its best foreground class), so the other class
    scores are zeroed before DetectionOutput. For ``force_suppress`` (NMS across classes),
    which DetectionOutput cannot do, and for batches (whose per-image rows DetectionOutput
    does not keep apart), the boxes are decoded here and the best-class rows go through
    NonMaxSuppression.
    """

    cls_prob, loc_pred, anchors = ctx.input(0), ctx.input(1), ctx.input(2)
    shape = ctx.input_shape(0)
    dims = [d for d in shape if d is not None] if shape is not None and len(shape) == 3 else []
    if len(dims) != 3:
        raise ConversionError(f"{ctx.where()}: MultiBoxDetection needs a static class-probability shape, got {shape}")
    batch, classes, count = dims
    background = ctx.attrs.int("background_id", 0)
    if background != 0:
        raise ctx.attrs.bad("background_id", background, "only background class 0 is supported")
    if batch != 1 or ctx.attrs.bool("force_suppress", False):
        return [_multibox_by_nms(ctx, batch, classes, count)]
    # One class per anchor: keep the best foreground score, zero the others and the background.
    foreground = ctx.op(Slice(), cls_prob, i64(ctx, [1]), i64(ctx, [classes]), i64(ctx, [1]), i64(ctx, [1]),
                        suffix="foreground")
    best = ctx.op(ReduceMax(keep_dims=True), foreground, i64(ctx, [1], "class_axis"), suffix="best")
    is_best = ctx.op(Equal(), foreground, best, suffix="is_best")
    zero = const_like(ctx, 0, cls_prob, "zero")
    kept = ctx.op(Select(), is_best, foreground, zero, suffix="kept")
    background_zero = const_like(ctx, np.zeros((1, 1, count)), cls_prob, "background")
    scores = ctx.op(Concat(axis=1), background_zero, kept, suffix="scores")
    scores = ctx.op(Transpose(), scores, i64(ctx, [0, 2, 1], "order"), suffix="scores_by_anchor")
    scores = ctx.op(Reshape(special_zero=False), scores, i64(ctx, [1, count * classes], "flat"), suffix="class_preds")
    variances = ctx.attrs.floats("variances", [0.1, 0.1, 0.2, 0.2], length=4)
    prior_boxes = ctx.op(Reshape(special_zero=False), anchors, i64(ctx, [1, 1, count * 4]), suffix="priors")
    prior_vars = const_like(ctx, np.tile(np.asarray(variances, np.float32), count).reshape(1, 1, count * 4),
                            anchors, "variances")
    proposals = ctx.op(Concat(axis=1), prior_boxes, prior_vars, suffix="proposals")
    topk = ctx.attrs.int("nms_topk", -1)
    clip = ctx.attrs.bool("clip", True)
    detection = DetectionOutput(
        background_label_id=0,
        top_k=topk if topk > 0 else -1,
        variance_encoded_in_target=False,
        keep_top_k=(count,),
        code_type="caffe.PriorBoxParameter.CENTER_SIZE",
        share_location=True,
        nms_threshold=ctx.attrs.float("nms_threshold", 0.5),
        confidence_threshold=ctx.attrs.float("threshold", 0.01),
        clip_after_nms=False,
        clip_before_nms=clip,
        decrease_label_id=False,
        normalized=True,
    )
    detections = ctx.op(detection, loc_pred, scores, proposals, suffix="detection")
    rows = ctx.op(Reshape(special_zero=False), detections, i64(ctx, [count, 7]), suffix="rows")
    image = ctx.op(Gather(), rows, i64(ctx, [0]), i64(ctx, 1, "axis"), suffix="image")
    fields = ctx.op(Gather(), rows, i64(ctx, [1, 2, 3, 4, 5, 6]), i64(ctx, 1, "axis"), suffix="fields")
    shift = const_like(ctx, [[1, 0, 0, 0, 0, 0]], cls_prob, "label_shift")
    fields = ctx.op(Subtract(), fields, shift, suffix="mxnet_label")
    valid = ctx.op(Equal(), ctx.op(Multiply(), image, const_like(ctx, 0, cls_prob, "zero_image"), suffix="z"),
                   image, suffix="valid")  # image id 0 (a detection) rather than -1 (padding)
    invalid = const_like(ctx, -1, cls_prob, "invalid")
    out = ctx.op(Select(), valid, fields, invalid, suffix="masked")
    return [ctx.op(Reshape(special_zero=False), out, i64(ctx, [1, count, 6]))]


def _decode(ctx: ExtractContext, batch: int, count: int) -> OutPort:
    """Boxes [B, A, 4] from the anchors and the predicted offsets (MXNet's center-size decoding)."""
    variances = ctx.attrs.floats("variances", [0.1, 0.1, 0.2, 0.2], length=4)
    anchors = ctx.op(Reshape(special_zero=False), ctx.input(2), i64(ctx, [1, count, 4]), suffix="anchor_rows")
    offsets = ctx.op(Reshape(special_zero=False), ctx.input(1), i64(ctx, [batch, count, 4]), suffix="offset_rows")
    a = ctx.add(Split(num_splits=4), [anchors, i64(ctx, 2, "axis")], "anchor_split")
    p = ctx.add(Split(num_splits=4), [offsets, i64(ctx, 2, "axis")], "offset_split")
    left, top, right, bottom = (a.out_port(i) for i in range(4))
    half = const_like(ctx, 0.5, anchors, "half")
    width = ctx.op(Subtract(), right, left, suffix="anchor_w")
    height = ctx.op(Subtract(), bottom, top, suffix="anchor_h")
    cx = ctx.op(Multiply(), ctx.op(Add(), left, right, suffix="lr"), half, suffix="anchor_cx")
    cy = ctx.op(Multiply(), ctx.op(Add(), top, bottom, suffix="tb"), half, suffix="anchor_cy")

    def scaled(port: OutPort, variance: float, name: str) -> OutPort:
        return ctx.op(Multiply(), port, const_like(ctx, variance, anchors, f"var_{name}"), suffix=name)

    ox = ctx.op(Add(), ctx.op(Multiply(), scaled(p.out_port(0), variances[0], "px"), width, suffix="dx"), cx,
                suffix="ox")
    oy = ctx.op(Add(), ctx.op(Multiply(), scaled(p.out_port(1), variances[1], "py"), height, suffix="dy"), cy,
                suffix="oy")
    ow = ctx.op(Multiply(), ctx.op(Multiply(), ctx.op(Exp(), scaled(p.out_port(2), variances[2], "pw"), suffix="ew"),
                                   width, suffix="w"), half, suffix="ow")
    oh = ctx.op(Multiply(), ctx.op(Multiply(), ctx.op(Exp(), scaled(p.out_port(3), variances[3], "ph"), suffix="eh"),
                                   height, suffix="h"), half, suffix="oh")
    corners = [ctx.op(Subtract(), ox, ow, suffix="x1"), ctx.op(Subtract(), oy, oh, suffix="y1"),
               ctx.op(Add(), ox, ow, suffix="x2"), ctx.op(Add(), oy, oh, suffix="y2")]
    boxes = ctx.op(Concat(axis=2), *corners, suffix="boxes")
    if ctx.attrs.bool("clip", True):
        boxes = ctx.op(Clamp(min=0.0, max=1.0), boxes, suffix="clipped")
    return boxes


def _multibox_by_nms(ctx: ExtractContext, batch: int, classes: int, count: int) -> OutPort:
    """Rows (best foreground class - 1, its score, box) of the anchors scoring at least
    ``threshold``, through NonMaxSuppression (per class, or across classes with
    ``force_suppress``), as MXNet's [B, A, 6]."""
    cls_prob = ctx.input(0)
    foreground = ctx.op(Slice(), cls_prob, i64(ctx, [1]), i64(ctx, [classes]), i64(ctx, [1]), i64(ctx, [1]),
                        suffix="foreground")
    best = ctx.add(TopK(axis=1, mode="max", sort="none", index_element_type=ElementType.i64),
                   [foreground, i64(ctx, 1, "k")], "best_class")
    score = ctx.op(Reshape(special_zero=False), best.out_port(0), i64(ctx, [batch, count]), suffix="score")
    label = convert_like(ctx, best.out_port(1), cls_prob, suffix="label_value")
    label = ctx.op(Reshape(special_zero=False), label, i64(ctx, [batch, count]), suffix="label")
    boxes = _decode(ctx, batch, count)
    columns = [ctx.op(Reshape(special_zero=False), p, i64(ctx, [batch, count, 1]), suffix=f"{n}_col")
               for p, n in ((label, "label"), (score, "score"))]
    rows = ctx.op(Concat(axis=2), *columns, boxes, suffix="rows")
    valid = ctx.op(GreaterEqual(), score, const_like(ctx, ctx.attrs.float("threshold", 0.01), cls_prob, "threshold"),
                   suffix="valid")
    competing = boxes if ctx.attrs.bool("force_suppress", False) else nms.separate_classes(ctx, boxes, label)
    return nms.select_rows(ctx, rows, competing, score, valid, ctx.attrs.float("nms_threshold", 0.5))


@extractor("mxnet", "ROIPooling", produces=[ROIPooling])
def roi_pooling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ROIPooling: rois [R, 5] (batch index, x1, y1, x2, y2), max over each bin."""
    pooled = ctx.attrs.ints("pooled_size", length=2)
    op = ROIPooling(pooled_h=pooled[0], pooled_w=pooled[1], spatial_scale=ctx.attrs.float("spatial_scale"), method="max")
    return [ctx.op(op, ctx.input(0), ctx.input(1))]



MULTIBOX_PRIOR = aliases("mxnet", ["_contrib_MultiBoxPrior", "MultiBoxPrior"], multibox_prior, produces=[Const])
MULTIBOX_DETECTION = aliases(
    "mxnet", ["_contrib_MultiBoxDetection", "MultiBoxDetection"], multibox_detection,
    produces=[DetectionOutput, Slice, ReduceMax, Equal, GreaterEqual, Select, Concat, Transpose, Reshape, Gather, Subtract,
              Multiply, TopK, Convert, Split, Add, Exp, Clamp, *nms.SELECT_ROWS_PRODUCES],
)
