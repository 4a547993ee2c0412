"""Detection layers: SSD's PriorBox/DetectionOutput, Faster R-CNN, R-FCN and YOLO layers."""

from __future__ import annotations

import ast

from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import (
    DetectionOutput,
    PriorBox,
    PSROIPooling,
    RegionYolo,
    ReorgYolo,
    Reshape,
    ROIPooling,
    ShapeOf,
    StridedSlice,
    Unsqueeze,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.detection import PROPOSAL_OPS, ProposalSettings, proposal

_CODE_TYPES = {
    "CORNER": "caffe.PriorBoxParameter.CORNER",
    "CENTER_SIZE": "caffe.PriorBoxParameter.CENTER_SIZE",
    "CORNER_SIZE": "caffe.PriorBoxParameter.CORNER_SIZE",
}


def _spatial_size(ctx: ExtractContext, idx: int, suffix: str) -> OutPort:
    """[H, W] of input ``idx``, from its shape (kept reshapeable)."""
    shape = shape_of(ctx, ctx.input(idx), suffix=f"{suffix}_shape")
    op = StridedSlice(begin_mask=[0], end_mask=[0], new_axis_mask=[], shrink_axis_mask=[], ellipsis_mask=[])
    return ctx.op(
        op,
        shape,
        i64(ctx, [2], suffix=f"{suffix}_begin"),
        i64(ctx, [4], suffix=f"{suffix}_end"),
        i64(ctx, [1], suffix=f"{suffix}_stride"),
        suffix=f"{suffix}_hw",
    )


@extractor("caffe", "PriorBox", produces=[ShapeOf, StridedSlice, PriorBox, Unsqueeze])
def extract_prior_box(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SSD priors (min/max sizes, aspect ratios, flip, clip, step, offset, variance): 1 x 2 x N."""
    p = ctx.attrs.required("prior_box_param")
    if p.is_set("step_h") or p.is_set("step_w"):
        if p.step_h != p.step_w:
            raise ConversionError(f"{ctx.where()}: different step_h and step_w are not supported")
        step = p.step_h
    else:
        step = p.step
    if p.is_set("img_h") or p.is_set("img_w") or p.is_set("img_size"):
        raise ConversionError(f"{ctx.where()}: an explicit img_size/img_h/img_w is not supported")
    variance = list(p.variance) or [0.1]
    op = PriorBox(
        min_size=list(p.min_size),
        max_size=list(p.max_size),
        aspect_ratio=list(p.aspect_ratio),
        flip=p.flip,
        clip=p.clip,
        step=step,
        offset=p.offset,
        variance=variance,
        scale_all_sizes=True,
        min_max_aspect_ratios_order=True,
    )
    boxes = ctx.op(op, _spatial_size(ctx, 0, "feature"), _spatial_size(ctx, 1, "image"), suffix="priorbox")
    # Caffe's top is 1 x 2 x (4 * boxes).
    return [ctx.op(Unsqueeze(), boxes, i64(ctx, [0], suffix="batch_axis"), suffix="unsqueeze")]


@extractor("caffe", "DetectionOutput", produces=[DetectionOutput])
def extract_detection_output(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SSD DetectionOutput with NMS and keep_top_k (Caffe's code types)."""
    p = ctx.attrs.required("detection_output_param")
    nms = p.nms_param
    op = DetectionOutput(
        background_label_id=p.background_label_id,
        top_k=nms.top_k if nms.is_set("top_k") else -1,
        variance_encoded_in_target=p.variance_encoded_in_target,
        keep_top_k=[p.keep_top_k],
        code_type=_CODE_TYPES[p.code_type],
        share_location=p.share_location,
        nms_threshold=nms.nms_threshold,
        confidence_threshold=p.confidence_threshold if p.is_set("confidence_threshold") else 0.0,
        clip_after_nms=False,
        clip_before_nms=False,
        decrease_label_id=False,
        normalized=True,
        input_height=1,
        input_width=1,
        objectness_score=0.0,
    )
    if p.num_classes <= 0:
        raise ConversionError(f"{ctx.where()}: num_classes must be positive")
    inputs = [ctx.input(i) for i in range(len(ctx.attrs.strs("bottom")))]
    return [ctx.op(op, *inputs, suffix="detection_output")]


@extractor("caffe", "Proposal", produces=[Reshape, *PROPOSAL_OPS])
def extract_proposal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Faster R-CNN region proposals (first output: the boxes)."""
    p = ctx.attrs.required("proposal_param")
    return [
        _proposal(
            ctx,
            p.base_size,
            p.pre_nms_topn,
            p.post_nms_topn,
            p.nms_thresh,
            p.feat_stride,
            p.min_size,
            list(p.ratio),
            list(p.scale),
        )
    ]


#: py-faster-rcnn's test-time configuration, used by its Python ProposalLayer.
_PY_FASTER_RCNN = {"feat_stride": 16, "scales": (8, 16, 32), "ratios": (0.5, 1, 2)}


@extractor("caffe", "Python", domain="rpn.proposal_layer.ProposalLayer", produces=[Reshape, *PROPOSAL_OPS])
def extract_python_proposal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """py-faster-rcnn's Python layer ``rpn.proposal_layer.ProposalLayer``.

    Python layers are keyed by their ``module.Layer``: a plugin adds others with
    ``extractor("caffe", "Python", fn, domain="module.Layer", produces=[...])``.
    """
    text = ctx.attrs.str("python_param.param_str")
    try:
        given = ast.literal_eval("{" + text + "}") if text.strip() else {}
    except (ValueError, SyntaxError):
        raise ConversionError(f"{ctx.where()}: cannot read param_str {quoted(text)}") from None
    settings = {**_PY_FASTER_RCNN, **given}
    return [
        _proposal(
            ctx,
            16,
            6000,
            300,
            0.7,
            int(settings["feat_stride"]),
            16,
            list(settings["ratios"]),
            list(settings["scales"]),
        )
    ]


def _proposal(
    ctx: ExtractContext,
    base_size: int,
    pre_nms_topn: int,
    post_nms_topn: int,
    nms_thresh: float,
    feat_stride: int,
    min_size: int,
    ratio: list[float],
    scale: list[float],
) -> OutPort:
    settings = ProposalSettings(
        base_size=base_size,
        pre_nms_topn=pre_nms_topn,
        post_nms_topn=post_nms_topn,
        nms_thresh=nms_thresh,
        feat_stride=feat_stride,
        min_size=min_size,
        ratios=tuple(float(r) for r in ratio) or (0.5, 1.0, 2.0),
        scales=tuple(float(s) for s in scale) or (8.0, 16.0, 32.0),
    )
    # Caffe's im_info is 1 x 3 (height, width, scale); OpenVINO takes it as a 1-D tensor.
    image_info = ctx.op(
        Reshape(special_zero=False), ctx.input(2), i64(ctx, [-1], suffix="info_shape"), suffix="im_info"
    )
    return proposal(ctx, settings, ctx.input(0), ctx.input(1), image_info).out_port(0)


@extractor("caffe", "PSROIPooling", produces=[PSROIPooling])
def extract_psroi_pooling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """R-FCN position-sensitive ROI pooling."""
    p = ctx.attrs.required("psroi_pooling_param")
    op = PSROIPooling(
        output_dim=p.output_dim,
        group_size=p.group_size,
        spatial_scale=p.spatial_scale,
        spatial_bins_x=1,
        spatial_bins_y=1,
        mode="average",
    )
    return [ctx.op(op, ctx.input(0), ctx.input(1), suffix="psroipooling")]


@extractor("caffe", "ROIPooling", produces=[ROIPooling])
def extract_roi_pooling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Faster R-CNN ROI max pooling."""
    p = ctx.attrs.required("roi_pooling_param")
    op = ROIPooling(pooled_h=p.pooled_h, pooled_w=p.pooled_w, spatial_scale=p.spatial_scale, method="max")
    return [ctx.op(op, ctx.input(0), ctx.input(1), suffix="roipooling")]


@extractor("caffe", "RegionYolo", produces=[RegionYolo])
def extract_region_yolo(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """YOLO v2/v3 region layer."""
    p = ctx.attrs.required("region_yolo_param")
    op = RegionYolo(
        coords=p.coords,
        classes=p.classes,
        num=p.num,
        do_softmax=p.do_softmax,
        mask=list(p.mask),
        axis=1,
        end_axis=3,
        anchors=list(p.anchors),
    )
    return [ctx.op(op, ctx.input(0), suffix="region_yolo")]


@extractor("caffe", "ReorgYolo", produces=[ReorgYolo])
def extract_reorg_yolo(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """YOLO v2 reorg."""
    stride = ctx.attrs.int("reorg_yolo_param.stride")
    return [ctx.op(ReorgYolo(stride=[stride, stride]), ctx.input(0), suffix="reorg_yolo")]

