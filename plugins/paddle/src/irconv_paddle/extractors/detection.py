"""Detection heads and post-processing: prior_box (SSD), yolo_box (YOLOv3 decoding), box_coder,
roi_align, multiclass_nms3, matrix_nms and generate_proposals_v2."""

from __future__ import annotations

import numpy as np
from irconv import ConversionError, ExtractContext
from irconv.frontend import aliases, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Concat,
    Convert,
    CumSum,
    Exp,
    Gather,
    GenerateProposals,
    GreaterEqual,
    MatrixNms,
    Maximum,
    Minimum,
    MulticlassNms,
    Multiply,
    Pad,
    PriorBox,
    Range,
    ReduceSum,
    Reshape,
    ROIAlign,
    Select,
    ShapeOf,
    Sigmoid,
    Slice,
    Subtract,
    Transpose,
    Unsqueeze,
)
from irconv_opset.build import dims_of

from irconv_paddle.extractors._common import arg, x
from irconv_paddle.names import both


def extract_prior_box(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SSD priors over the feature map (input 0) for the image (input 1): boxes and variances,
    each [H, W, priors, 4], normalised to the image. PriorBox-8 follows Paddle's order of
    min/max/ratio boxes (``min_max_aspect_ratios_order``)."""
    feature, image = x(ctx), arg(ctx, 1)
    assert image is not None
    step_w, step_h = ctx.attrs.float("step_w", 0.0), ctx.attrs.float("step_h", 0.0)
    if step_w != step_h:
        raise ctx.attrs.bad("step_w", step_w, f"differs from step_h={step_h}; PriorBox has one step")
    variances = ctx.attrs.floats("variances", [0.1, 0.1, 0.2, 0.2])
    op = PriorBox(min_size=tuple(ctx.attrs.floats("min_sizes")), max_size=tuple(ctx.attrs.floats("max_sizes", [])),
                  aspect_ratio=tuple(ctx.attrs.floats("aspect_ratios", [1.0])), flip=ctx.attrs.bool("flip", False),
                  clip=ctx.attrs.bool("clip", False), step=step_w, offset=ctx.attrs.float("offset", 0.5),
                  variance=tuple(variances), scale_all_sizes=True,
                  min_max_aspect_ratios_order=ctx.attrs.bool("min_max_aspect_ratios_order", False))
    spatial = dims_of(ctx, feature, [2, 3], "feature_size")
    image_size = dims_of(ctx, image, [2, 3], "image_size")
    priors = ctx.op(op, spatial, image_size, suffix="priors")  # [2, H*W*P*4]
    shape = ctx.op(Concat(axis=0), spatial, i64(ctx, [-1, 4], "tail"), suffix="shape")
    outputs = []
    for i, name in enumerate(("boxes", "variances")):
        row = ctx.op(Slice(), priors, i64(ctx, [i]), i64(ctx, [i + 1]), i64(ctx, [1]), i64(ctx, [0]), suffix=f"{name}_row")
        outputs.append(ctx.op(Reshape(special_zero=False), row, shape, suffix=name))
    return outputs


PRIOR_BOX = aliases("paddle", both("prior_box"), extract_prior_box,
                    produces=[PriorBox, Concat, Slice, Reshape, ShapeOf, Gather])


def extract_yolo_box(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """YOLOv3 box decoding of X [N, A*(5+C), H, W] for images of ImgSize [N, 2] (h, w):
    boxes [N, A*H*W, 4] in image pixels (x1, y1, x2, y2) and scores [N, A*H*W, C], both zero
    where the objectness is below ``conf_thresh``."""
    data, image_size = x(ctx), arg(ctx, 1)
    assert image_size is not None
    if ctx.attrs.bool("iou_aware", False):
        raise ctx.attrs.bad("iou_aware", True, "IoU-aware YOLO heads are not converted")
    shape = ctx.input_shape(0)
    if shape is None or shape[2] is None or shape[3] is None:
        raise ConversionError(f"{ctx.where()}: yolo_box needs the feature map's height and width; give the input "
                              "shape with --input")
    anchors = np.asarray(ctx.attrs.ints("anchors"), np.float32).reshape(-1, 2)
    classes, height, width = ctx.attrs.int("class_num"), int(shape[2]), int(shape[3])
    count = len(anchors)
    ratio = ctx.attrs.int("downsample_ratio", 32)
    scale = ctx.attrs.float("scale_x_y", 1.0)

    def c(value: object, name: str) -> OutPort:
        return ctx.const(np.asarray(value, np.float32), suffix=name)

    def field(start: int, stop: int, name: str) -> OutPort:
        return ctx.op(Slice(), grid, i64(ctx, [start]), i64(ctx, [stop]), i64(ctx, [1]), i64(ctx, [4]), suffix=name)

    split = ctx.op(Reshape(special_zero=True), data, i64(ctx, [0, count, 5 + classes, height, width]), suffix="split")
    grid = ctx.op(Transpose(), split, i64(ctx, [0, 1, 3, 4, 2], "perm"), suffix="grid")  # [N, A, H, W, 5+C]
    size = ctx.op(Convert(destination_type=ElementType.f32), image_size, suffix="image_size_f32")
    size = ctx.op(Reshape(special_zero=True), size, i64(ctx, [0, 1, 1, 1, 2], "size_shape"), suffix="image_hw")
    image_h = ctx.op(Slice(), size, i64(ctx, [0]), i64(ctx, [1]), i64(ctx, [1]), i64(ctx, [4]), suffix="image_h")
    image_w = ctx.op(Slice(), size, i64(ctx, [1]), i64(ctx, [2]), i64(ctx, [1]), i64(ctx, [4]), suffix="image_w")
    offsets = ctx.op(Sigmoid(), field(0, 2, "txy"), suffix="sxy")
    offsets = ctx.op(Add(), ctx.op(Multiply(), offsets, c(scale, "scale_x_y"), suffix="sxy_scaled"),
                     c(-0.5 * (scale - 1.0), "bias_x_y"), suffix="sxy_biased")
    cells = np.stack(np.meshgrid(np.arange(width), np.arange(height)), axis=-1).astype(np.float32)  # [H, W, 2] (x, y)
    centre = ctx.op(Add(), offsets, c(cells[None, None], "cells"), suffix="cell_xy")
    centre = ctx.op(Multiply(), centre, c([[1.0 / width, 1.0 / height]], "per_cell"), suffix="centre_rel")
    sizes = ctx.op(Exp(), field(2, 4, "twh"), suffix="ewh")
    sizes = ctx.op(Multiply(), sizes, c((anchors / [width * ratio, height * ratio])[None, :, None, None, :],
                                        "anchors"), suffix="wh_rel")
    image_wh = ctx.op(Concat(axis=4), image_w, image_h, suffix="image_wh")
    half = ctx.op(Multiply(), sizes, c(0.5, "half"), suffix="half_wh")
    low = ctx.op(Multiply(), ctx.op(Subtract(), centre, half, suffix="low_rel"), image_wh, suffix="low")
    high = ctx.op(Multiply(), ctx.op(Add(), centre, half, suffix="high_rel"), image_wh, suffix="high")
    if ctx.attrs.bool("clip_bbox", True):
        low = ctx.op(Maximum(), low, c(0.0, "zero"), suffix="low_clipped")
        limit = ctx.op(Subtract(), image_wh, c(1.0, "one"), suffix="limit")
        high = ctx.op(Minimum(), high, limit, suffix="high_clipped")
    confidence = ctx.op(Sigmoid(), field(4, 5, "tconf"), suffix="conf")
    kept = ctx.op(GreaterEqual(), confidence, c(ctx.attrs.float("conf_thresh", 0.01), "conf_thresh"), suffix="kept")
    confidence = ctx.op(Select(), kept, confidence, c(0.0, "none"), suffix="conf_kept")
    boxes = ctx.op(Concat(axis=4), low, high, suffix="corners")
    boxes = ctx.op(Multiply(), boxes, ctx.op(Convert(destination_type=ElementType.f32), kept, suffix="kept_f32"),
                   suffix="boxes_kept")
    scores = ctx.op(Multiply(), ctx.op(Sigmoid(), field(5, 5 + classes, "tcls"), suffix="cls"), confidence,
                    suffix="scores_kept")
    return [ctx.op(Reshape(special_zero=True), boxes, i64(ctx, [0, -1, 4], "boxes_shape"), suffix="boxes"),
            ctx.op(Reshape(special_zero=True), scores, i64(ctx, [0, -1, classes], "scores_shape"), suffix="scores")]


YOLO_BOX = aliases("paddle", both("yolo_box"), extract_yolo_box,
                   produces=[Reshape, Transpose, Convert, Slice, Sigmoid, Add, Multiply, Exp, Concat, Subtract,
                             Maximum, Minimum, GreaterEqual, Select])


def extract_multiclass_nms(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Boxes [N, M, 4] and scores [N, C, M]: per image the kept boxes in class order as
    [label, score, x1, y1, x2, y2] rows, their indices, and the count per image."""
    if len(ctx.input_shape(1) or ()) != 3:
        raise ConversionError(f"{ctx.where()}: multiclass_nms3 with per-box scores [M, C] and RoisNum (two-stage "
                              "detectors) is not converted; scores must be [N, C, M]")
    op = MulticlassNms(sort_result_type="classid", sort_result_across_batch=False, output_type=ElementType.i32,
                       iou_threshold=ctx.attrs.float("nms_threshold", 0.3),
                       score_threshold=ctx.attrs.float("score_threshold"), nms_top_k=ctx.attrs.int("nms_top_k", -1),
                       keep_top_k=ctx.attrs.int("keep_top_k", -1), background_class=ctx.attrs.int("background_label", 0),
                       nms_eta=ctx.attrs.float("nms_eta", 1.0), normalized=ctx.attrs.bool("normalized", True))
    nms = ctx.add(op, [x(ctx), arg(ctx, 1)])
    return [nms.out_port(0), nms.out_port(1), nms.out_port(2)]


MULTICLASS_NMS = aliases("paddle", both("multiclass_nms3"), extract_multiclass_nms, produces=[MulticlassNms])


def extract_matrix_nms(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Matrix NMS (SOLOv2) of boxes [N, M, 4] and scores [N, C, M]: per image the kept rows
    [label, score, x1, y1, x2, y2] by descending score, their indices, and the count per image."""
    decay = "gaussian" if ctx.attrs.bool("use_gaussian", False) else "linear"
    op = MatrixNms(sort_result_type="score", sort_result_across_batch=False, output_type=ElementType.i32,
                   score_threshold=ctx.attrs.float("score_threshold"), nms_top_k=ctx.attrs.int("nms_top_k", -1),
                   keep_top_k=ctx.attrs.int("keep_top_k", -1), background_class=ctx.attrs.int("background_label", 0),
                   decay_function=decay, gaussian_sigma=ctx.attrs.float("gaussian_sigma", 2.0),
                   post_threshold=ctx.attrs.float("post_threshold", 0.0), normalized=ctx.attrs.bool("normalized", True))
    nms = ctx.add(op, [x(ctx), arg(ctx, 1)])
    return [nms.out_port(0), nms.out_port(1), nms.out_port(2)]


MATRIX_NMS = aliases("paddle", both("matrix_nms"), extract_matrix_nms, produces=[MatrixNms])


def _batch_indices(ctx: ExtractContext, counts: OutPort | None, rois: OutPort) -> OutPort:
    """The image of each RoI [R] (i32) from the RoIs per image [N]; all 0 without counts."""
    total = dims_of(ctx, rois, 0, "roi_count")
    ids = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0, "zero"), total, i64(ctx, 1, "one"), suffix="roi_ids")
    if counts is None:
        return ctx.op(Convert(destination_type=ElementType.i32), ctx.op(Multiply(), ids, i64(ctx, 0, "none"),
                                                                          suffix="zeros"), suffix="batch")
    ends = ctx.op(CumSum(), ctx.op(Convert(destination_type=ElementType.i64), counts, suffix="counts"),
                  i64(ctx, 0, "axis"), suffix="ends")
    passed = ctx.op(GreaterEqual(), ctx.op(Unsqueeze(), ids, i64(ctx, [1], "column"), suffix="ids_column"),
                    ctx.op(Unsqueeze(), ends, i64(ctx, [0], "row"), suffix="ends_row"), suffix="passed")
    images = ctx.op(ReduceSum(keep_dims=False), ctx.op(Convert(destination_type=ElementType.i32), passed,
                                                       suffix="passed_i32"), i64(ctx, [1], "image_axis"))
    return images


def extract_roi_align(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Average RoI pooling of X [N, C, H, W] over RoIs [R, 4] (x1, y1, x2, y2 in input pixels
    times ``spatial_scale``), images given by RoisNum; ``aligned`` shifts by half a pixel."""
    data, rois, counts = x(ctx), arg(ctx, 1), arg(ctx, 2)
    assert rois is not None
    op = ROIAlign(pooled_h=ctx.attrs.int("pooled_height", 1), pooled_w=ctx.attrs.int("pooled_width", 1),
                  sampling_ratio=max(ctx.attrs.int("sampling_ratio", -1), 0),
                  spatial_scale=ctx.attrs.float("spatial_scale", 1.0), mode="avg",
                  aligned_mode="half_pixel_for_nn" if ctx.attrs.bool("aligned", False) else "asymmetric")
    return [ctx.op(op, data, rois, _batch_indices(ctx, counts, rois))]


ROI_ALIGN = aliases("paddle", both("roi_align"), extract_roi_align,
                    produces=[ROIAlign, Range, Convert, Multiply, CumSum, GreaterEqual, Unsqueeze, ReduceSum, Gather,
                              ShapeOf])


def extract_box_coder(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Decoding (``decode_center_size``) of TargetBox [N, M, 4] deltas against PriorBox [M, 4]
    (``axis`` 0; ``axis`` 1: priors [N, 4] along the first axis), scaled by PriorBoxVar or the
    ``variance`` attribute; ``box_normalized`` False counts the last pixel (+1 widths)."""
    if ctx.attrs.str("code_type", "decode_center_size") != "decode_center_size":
        raise ctx.attrs.bad("code_type", ctx.attrs.str("code_type"), "only decode_center_size is converted")
    prior, prior_var, target = x(ctx), arg(ctx, 1), arg(ctx, 2)
    assert target is not None
    one = 0.0 if ctx.attrs.bool("box_normalized", True) else 1.0
    lift = [0] if ctx.attrs.int("axis", 0) == 0 else [1]

    def c(value: object, name: str) -> OutPort:
        return ctx.const(np.asarray(value, np.float32), suffix=name)

    def pair(port: OutPort, start: int, name: str) -> OutPort:
        return ctx.op(Slice(), port, i64(ctx, [start]), i64(ctx, [start + 2]), i64(ctx, [1]), i64(ctx, [-1]),
                      suffix=name)

    prior = ctx.op(Unsqueeze(), prior, i64(ctx, lift, "lift"), suffix="prior")
    low, high = pair(prior, 0, "prior_low"), pair(prior, 2, "prior_high")
    size = ctx.op(Add(), ctx.op(Subtract(), high, low, suffix="prior_span"), c(one, "pixel"), suffix="prior_size")
    centre = ctx.op(Add(), low, ctx.op(Multiply(), size, c(0.5, "half"), suffix="half_size"), suffix="prior_centre")
    if prior_var is not None:
        variance = ctx.op(Unsqueeze(), prior_var, i64(ctx, lift, "var_lift"), suffix="variance")
    else:
        variance = c(ctx.attrs.floats("variance", [1.0, 1.0, 1.0, 1.0]) or [1.0] * 4, "variance")
    scaled = ctx.op(Multiply(), target, variance, suffix="scaled")
    new_centre = ctx.op(Add(), ctx.op(Multiply(), pair(scaled, 0, "dxy"), size, suffix="shift"), centre, suffix="centre")
    new_size = ctx.op(Multiply(), ctx.op(Exp(), pair(scaled, 2, "dwh"), suffix="grow"), size, suffix="size")
    half = ctx.op(Multiply(), new_size, c(0.5, "half_new"), suffix="half_new_size")
    top = ctx.op(Subtract(), new_centre, half, suffix="top_left")
    bottom = ctx.op(Subtract(), ctx.op(Add(), new_centre, half, suffix="far"), c(one, "pixel_end"), suffix="bottom_right")
    return [ctx.op(Concat(axis=-1), top, bottom)]


BOX_CODER = aliases("paddle", both("box_coder"), extract_box_coder,
                    produces=[Unsqueeze, Slice, Add, Subtract, Multiply, Exp, Concat])


def extract_generate_proposals(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Region proposals (``generate_proposals_v2``): scores [N, A, H, W], deltas [N, 4A, H, W]
    scaled by the variances [H, W, A, 4] (how Paddle decodes them), the image sizes [N, 2]
    (height, width; scale 1), anchors [H, W, A, 4]. The boxes [R, 4], their scores [R, 1]
    and the int32 count per image. Boxes are measured with Paddle's +1 pixel offset unless
    ``pixel_offset`` is false, and those narrower or lower than ``min_size`` (at least 1, as
    Paddle has it) are dropped."""
    scores, deltas, image, anchors, variances = (arg(ctx, i) for i in range(5))
    if scores is None or deltas is None or image is None or anchors is None:
        raise ConversionError(f"{ctx.where()}: generate_proposals needs scores, deltas, image sizes and anchors")
    if variances is not None:  # [H, W, A, 4] -> [1, A*4, H, W], the deltas' layout
        laid = ctx.op(Transpose(), variances, i64(ctx, [2, 3, 0, 1], "variance_order"), suffix="variances_moved")
        laid = ctx.op(Reshape(special_zero=True), laid, i64(ctx, [1, -1, 0, 0], "variance_shape"), suffix="variances")
        deltas = ctx.op(Multiply(), deltas, laid, suffix="scaled_deltas")
    info = ctx.op(Pad(pad_mode="constant"), image, i64(ctx, [0, 0], "pad_begin"), i64(ctx, [0, 1], "pad_end"),
                  ctx.const(np.asarray(1.0, np.float32), suffix="scale"), suffix="image_info")
    op = GenerateProposals(min_size=max(ctx.attrs.float("min_size", 0.1), 1.0),
                           nms_threshold=ctx.attrs.float("nms_thresh", 0.5),
                           pre_nms_count=ctx.attrs.int("pre_nms_topN", ctx.attrs.int("pre_nms_top_n", 6000)),
                           post_nms_count=ctx.attrs.int("post_nms_topN", ctx.attrs.int("post_nms_top_n", 1000)),
                           normalized=not ctx.attrs.bool("pixel_offset", True), nms_eta=ctx.attrs.float("eta", 1.0),
                           roi_num_type=ElementType.i32)
    found = ctx.add(op, [info, anchors, deltas, scores], suffix="proposals")
    probabilities = ctx.op(Unsqueeze(), found.out_port(1), i64(ctx, [1], "column"), suffix="probabilities")
    return [found.out_port(0), probabilities, found.out_port(2)]


GENERATE_PROPOSALS = aliases("paddle", ["generate_proposals_v2", "pd_op.generate_proposals"],
                             extract_generate_proposals,
                             produces=[Transpose, Reshape, Multiply, Pad, GenerateProposals, Unsqueeze])
