"""Detection ops: _contrib_MultiBoxPrior, _contrib_MultiBoxDetection, ROIPooling,
_contrib_Proposal."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv.types import ElementType

from irconv_mxnet.extractors._common import (
    bad,
    flag,
    floats,
    i64,
    integer,
    ints,
    like_const,
    mx_op,
    number,
    rank,
)


def multibox_prior_values(height: int, width: int, sizes: tuple[float, ...], ratios: tuple[float, ...],
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
        raise bad(ctx, "sizes", ctx.attr("sizes", None), "MultiBoxPrior needs a static feature map height and width")
    steps = floats(ctx, "steps", (-1.0, -1.0))
    offsets = floats(ctx, "offsets", (0.5, 0.5))
    values = multibox_prior_values(int(shape[2]), int(shape[3]), floats(ctx, "sizes", (1.0,)),
                                   floats(ctx, "ratios", (1.0,)), (steps[0], steps[1]), (offsets[0], offsets[1]),
                                   flag(ctx, "clip", False))
    return [ctx.const(values, suffix="anchors")]


def multibox_detection(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MultiBoxDetection as DetectionOutput, rearranged to MXNet's [1, A, 6] rows
    (class - 1, score, xmin, ymin, xmax, ymax; -1 rows after the detections).

    MXNet keeps one class per anchor (its best foreground class), so the other class
    scores are zeroed before DetectionOutput. Batch 1 only; ``force_suppress`` (NMS
    across classes) is not expressible with DetectionOutput.
    """
    from irconv_opset import (
        Concat,
        DetectionOutput,
        Equal,
        Gather,
        Multiply,
        ReduceMax,
        Reshape,
        Select,
        Slice,
        Subtract,
        Transpose,
    )

    if flag(ctx, "force_suppress", False):
        raise bad(ctx, "force_suppress", True, "NMS across classes is not supported")
    cls_prob, loc_pred, anchors = ctx.input(0), ctx.input(1), ctx.input(2)
    shape = ctx.input_shape(0)
    if shape is None or any(d is None for d in shape) or shape[0] != 1:
        raise bad(ctx, "cls_prob", shape, "MultiBoxDetection needs a static class-probability shape with batch 1")
    _, classes, count = (int(d) for d in shape)  # type: ignore[arg-type]
    background = integer(ctx, "background_id", 0)
    if background != 0:
        raise bad(ctx, "background_id", background, "only background class 0 is supported")
    # One class per anchor: keep the best foreground score, zero the others and the background.
    foreground = ctx.op(Slice(), cls_prob, i64(ctx, [1]), i64(ctx, [classes]), i64(ctx, [1]), i64(ctx, [1]),
                        suffix="foreground")
    best = ctx.op(ReduceMax(keep_dims=True), foreground, i64(ctx, [1], "class_axis"), suffix="best")
    is_best = ctx.op(Equal(), foreground, best, suffix="is_best")
    zero = like_const(ctx, 0, cls_prob, "zero")
    kept = ctx.op(Select(), is_best, foreground, zero, suffix="kept")
    background_zero = like_const(ctx, np.zeros((1, 1, count)), cls_prob, "background")
    scores = ctx.op(Concat(axis=1), background_zero, kept, suffix="scores")
    scores = ctx.op(Transpose(), scores, i64(ctx, [0, 2, 1], "order"), suffix="scores_by_anchor")
    scores = ctx.op(Reshape(special_zero=False), scores, i64(ctx, [1, count * classes], "flat"), suffix="class_preds")
    variances = floats(ctx, "variances", (0.1, 0.1, 0.2, 0.2))
    prior_boxes = ctx.op(Reshape(special_zero=False), anchors, i64(ctx, [1, 1, count * 4]), suffix="priors")
    prior_vars = like_const(ctx, np.tile(np.asarray(variances, np.float32), count).reshape(1, 1, count * 4),
                            anchors, "variances")
    proposals = ctx.op(Concat(axis=1), prior_boxes, prior_vars, suffix="proposals")
    topk = integer(ctx, "nms_topk", -1)
    clip = flag(ctx, "clip", True)
    detection = DetectionOutput(
        background_label_id=0,
        top_k=topk if topk > 0 else -1,
        variance_encoded_in_target=False,
        keep_top_k=(count,),
        code_type="caffe.PriorBoxParameter.CENTER_SIZE",
        share_location=True,
        nms_threshold=number(ctx, "nms_threshold", 0.5),
        confidence_threshold=number(ctx, "threshold", 0.01),
        clip_after_nms=False,
        clip_before_nms=clip,
        decrease_label_id=False,
        normalized=True,
    )
    detections = ctx.op(detection, loc_pred, scores, proposals, suffix="detection")
    rows = ctx.op(Reshape(special_zero=False), detections, i64(ctx, [count, 7]), suffix="rows")
    image = ctx.op(Gather(), rows, i64(ctx, [0]), i64(ctx, 1, "axis"), suffix="image")
    fields = ctx.op(Gather(), rows, i64(ctx, [1, 2, 3, 4, 5, 6]), i64(ctx, 1, "axis"), suffix="fields")
    shift = like_const(ctx, [[1, 0, 0, 0, 0, 0]], cls_prob, "label_shift")
    fields = ctx.op(Subtract(), fields, shift, suffix="mxnet_label")
    valid = ctx.op(Equal(), ctx.op(Multiply(), image, like_const(ctx, 0, cls_prob, "zero_image"), suffix="z"),
                   image, suffix="valid")  # image id 0 (a detection) rather than -1 (padding)
    invalid = like_const(ctx, -1, cls_prob, "invalid")
    out = ctx.op(Select(), valid, fields, invalid, suffix="masked")
    return [ctx.op(Reshape(special_zero=False), out, i64(ctx, [1, count, 6]))]


def roi_pooling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ROIPooling: rois [R, 5] (batch index, x1, y1, x2, y2), max over each bin."""
    from irconv_opset import ROIPooling

    pooled = ints(ctx, "pooled_size")
    op = ROIPooling(pooled_h=pooled[0], pooled_w=pooled[1], spatial_scale=number(ctx, "spatial_scale"), method="max")
    return [ctx.op(op, ctx.input(0), ctx.input(1))]


def proposal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """_contrib_Proposal as Proposal-4 (anchors of base size ``feature_stride``)."""
    from irconv_opset import Proposal

    if flag(ctx, "iou_loss", False):
        raise bad(ctx, "iou_loss", True, "IoU-loss box deltas are not supported")
    if rank(ctx, 0) != 4:
        raise bad(ctx, "cls_prob", ctx.input_shape(0), "expected [N, 2A, H, W]")
    stride = integer(ctx, "feature_stride", 16)
    op = Proposal(
        base_size=stride,
        pre_nms_topn=integer(ctx, "rpn_pre_nms_top_n", 6000),
        post_nms_topn=integer(ctx, "rpn_post_nms_top_n", 300),
        nms_thresh=number(ctx, "threshold", 0.7),
        feat_stride=stride,
        min_size=integer(ctx, "rpn_min_size", 16),
        ratio=floats(ctx, "ratios", (0.5, 1.0, 2.0)),
        scale=floats(ctx, "scales", (4.0, 8.0, 16.0, 32.0)),
        clip_before_nms=True,
        clip_after_nms=False,
        normalize=False,
        box_size_scale=1.0,
        box_coordinate_scale=1.0,
        framework="",
    )
    # Proposal-4 takes one image's [height, width, scale]: MXNet's im_info is [N, 3].
    from irconv_opset import Reshape

    info = ctx.input_shape(2)
    if info is None or len(info) != 2 or info[0] != 1:
        raise bad(ctx, "im_info", info, "Proposal needs im_info of shape [1, 3] (batch 1)")
    image = ctx.op(Reshape(special_zero=False), ctx.input(2), i64(ctx, [-1], "flat"), suffix="image_info")
    node_out = ctx.add(op, [ctx.input(0), ctx.input(1), image], "proposal")
    outputs = [node_out.out_port(0)]
    if flag(ctx, "output_score", False):
        outputs.append(node_out.out_port(1))
    return outputs


def box_nms(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """box_nms on [1, N, K] (or [N, K]) rows: NonMaxSuppression on the boxes at
    ``coord_start``, scored by ``score_index``, per ``id_index`` class unless
    ``force_suppress``; kept rows sorted by score, then -1 rows, in the input's shape.

    Classes are kept apart by shifting each class's boxes past every other's (IoU 0 across
    classes), so a single-class NMS serves any class ids.
    """
    from irconv_opset import (
        Abs,
        Add,
        Concat,
        Gather,
        Greater,
        GreaterEqual,
        LogicalAnd,
        Multiply,
        NonMaxSuppression,
        NotEqual,
        ReduceMax,
        ReduceMin,
        Reshape,
        Select,
        Slice,
        TopK,
    )

    shape = ctx.input_shape(0)
    if shape is None or any(d is None for d in shape[-2:]) or len(shape) not in (2, 3) or \
            (len(shape) == 3 and shape[0] != 1):
        raise bad(ctx, "data", shape, "box_nms needs [N, K] or [1, N, K] rows with static N and K")
    count, width = int(shape[-2]), int(shape[-1])  # type: ignore[arg-type]
    in_format = str(ctx.attr("in_format", "corner"))
    if in_format != str(ctx.attr("out_format", "corner")):
        raise bad(ctx, "out_format", ctx.attr("out_format"), "converting box formats is not supported")
    start = integer(ctx, "coord_start", 2)
    score_index = integer(ctx, "score_index", 1)
    id_index = integer(ctx, "id_index", -1)
    background = integer(ctx, "background_id", -1)
    topk = integer(ctx, "topk", -1)
    x = ctx.input(0)
    rows = ctx.op(Reshape(special_zero=False), x, i64(ctx, [count, width]), suffix="rows")

    def column(index: int, name: str) -> OutPort:
        return ctx.op(Gather(), rows, i64(ctx, index), i64(ctx, 1, "axis"), suffix=name)

    boxes = ctx.op(Slice(), rows, i64(ctx, [start]), i64(ctx, [start + 4]), i64(ctx, [1]), i64(ctx, [1]),
                   suffix="boxes")
    scores = column(score_index, "scores")
    valid = ctx.op(Greater(), scores, like_const(ctx, number(ctx, "valid_thresh", 0.0), x, "valid_thresh"),
                   suffix="valid")
    if id_index >= 0:
        ids = column(id_index, "ids")
        if background >= 0:
            not_background = ctx.op(NotEqual(), ids, like_const(ctx, background, x, "background"), suffix="not_bg")
            valid = ctx.op(LogicalAnd(), valid, not_background, suffix="valid_fg")
        if not flag(ctx, "force_suppress", False):
            span = ctx.op(ReduceMax(keep_dims=False), ctx.op(Abs(), boxes, suffix="abs"), i64(ctx, [0, 1]),
                          suffix="extent")
            span = ctx.op(Add(), ctx.op(Multiply(), span, like_const(ctx, 4, x, "four"), suffix="twice"),
                          like_const(ctx, 1, x, "one"), suffix="span")
            shift = ctx.op(Multiply(), ids, span, suffix="class_shift")
            shift = ctx.op(Reshape(special_zero=False), shift, i64(ctx, [count, 1]), suffix="class_shift_col")
            boxes = ctx.op(Add(), boxes, shift, suffix="boxes_by_class")
    if 0 < topk < count:
        best = ctx.add(TopK(axis=0, mode="max", sort="value", index_element_type=ElementType.i64),
                       [scores, i64(ctx, topk, "k")], "topk")
        kth = ctx.op(ReduceMin(keep_dims=False), best.out_port(0), i64(ctx, [0]), suffix="kth")
        valid = ctx.op(LogicalAnd(), valid, ctx.op(GreaterEqual(), scores, kth, suffix="in_topk"), suffix="valid_k")
    lowest = like_const(ctx, -1e30, x, "lowest")
    masked = ctx.op(Select(), valid, scores, lowest, suffix="masked_scores")
    nms = NonMaxSuppression(box_encoding="center" if in_format == "center" else "corner",
                            sort_result_descending=True, output_type=ElementType.i64)
    selected = ctx.add(nms, [
        ctx.op(Reshape(special_zero=False), boxes, i64(ctx, [1, count, 4]), suffix="nms_boxes"),
        ctx.op(Reshape(special_zero=False), masked, i64(ctx, [1, 1, count]), suffix="nms_scores"),
        i64(ctx, [count], "max_boxes"),
        like_const(ctx, [number(ctx, "overlap_thresh", 0.5)], x, "iou"),
        like_const(ctx, [-1e29], x, "score_threshold"),
    ], "nms")
    picked = ctx.op(Gather(), selected.out_port(0), i64(ctx, 2), i64(ctx, 1, "axis"), suffix="picked")
    kept = ctx.op(Gather(), rows, picked, i64(ctx, 0, "axis"), suffix="kept")
    padding = like_const(ctx, -np.ones((count, width)), x, "padding")
    out = ctx.op(Concat(axis=0), kept, padding, suffix="padded")
    out = ctx.op(Slice(), out, i64(ctx, [0]), i64(ctx, [count]), i64(ctx, [1]), i64(ctx, [0]), suffix="first_rows")
    return [ctx.op(Reshape(special_zero=False), out, i64(ctx, list(shape)))]


def extractors() -> list[Extractor]:
    return [
        *mx_op(("_contrib_MultiBoxPrior", "MultiBoxPrior"), multibox_prior, "Const"),
        *mx_op(("_contrib_MultiBoxDetection", "MultiBoxDetection"), multibox_detection, "DetectionOutput"),
        *mx_op("ROIPooling", roi_pooling, "ROIPooling"),
        *mx_op(("_contrib_Proposal", "Proposal"), proposal, "Proposal"),
        *mx_op(("_contrib_box_nms", "_contrib_box_non_maximum_suppression", "box_nms"), box_nms,
               "NonMaxSuppression, Gather"),
    ]
