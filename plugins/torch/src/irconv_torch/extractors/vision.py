"""Sampling images: ``grid_sample`` onto GridSample, and torchvision's detection operators
(``torchvision::nms``, ``torchvision::roi_align``) onto NonMaxSuppression and ROIAlign.
torchvision registers those as ``torch.library`` ops, so ``torch.export`` keeps them whole in
detection models (Faster/Mask/Keypoint R-CNN, RetinaNet, FCOS, SSD)."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, typed
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Convert, Gather, GridSample, ROIAlign, ShapeOf, Slice, Squeeze, Unsqueeze
from irconv_opset.build import shape_of
from irconv_opset.lowering.nms import SUPPRESS_OPS, suppress

from irconv_torch.extractors._args import TORCH_2_5, cast, tensor

#: ``grid_sampler``'s integer codes of its interpolation and padding modes.
_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDINGS = ("zeros", "border", "reflection")


@extractor("torch", "torchvision.nms.default", versions=TORCH_2_5,
           produces=[*SUPPRESS_OPS, Convert, Unsqueeze, ShapeOf, Gather])
def nms(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The indices of the boxes ``dets`` ``[N, 4]`` (x1, y1, x2, y2) kept by greedy
    non-maximum suppression, by decreasing score: one batch and one class of OpenVINO's NMS,
    every box a candidate (no score threshold, no limit but ``N``)."""
    boxes = tensor(ctx, "dets")
    scores = cast(ctx, tensor(ctx, "scores"), boxes.data.element_type, suffix="scores_convert")
    batched_boxes = ctx.op(Unsqueeze(), boxes, i64(ctx, 0, suffix="batch_axis"), suffix="boxes")
    batched_scores = ctx.op(Unsqueeze(), scores, i64(ctx, [0, 1], suffix="batch_class_axes"), suffix="scores")
    count = ctx.op(Gather(), shape_of(ctx, boxes), i64(ctx, [0], suffix="count_index"), i64(ctx, 0), suffix="count")
    element_type = boxes.data.element_type
    iou = typed(ctx, ctx.attrs.float("iou_threshold"), element_type, suffix="iou_threshold")
    lowest = typed(ctx, np.finfo(np.float32).min, element_type, suffix="score_threshold")
    selected = suppress(ctx, batched_boxes, batched_scores, count, iou, lowest, suffix="op").out_port(0)
    return [ctx.op(Gather(), selected, i64(ctx, 2, suffix="box_column"), i64(ctx, 1, suffix="axis"), suffix="keep")]


@extractor("torch", "torchvision.roi_align.default", versions=TORCH_2_5, produces=[ROIAlign, Slice, Squeeze, Convert])
def roi_align(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Average-pooled ``pooled_height x pooled_width`` bins of ``input`` under each region of
    ``rois`` ``[K, 5]`` (batch index, x1, y1, x2, y2). ``aligned`` shifts the regions by half
    a pixel (OpenVINO's ``half_pixel``); without it, regions are at least one pixel wide
    (``asymmetric``). A ``sampling_ratio`` <= 0 samples ``ceil(bin size)`` points, OpenVINO's 0."""
    data = tensor(ctx, "input")
    rois = cast(ctx, tensor(ctx, "rois"), data.data.element_type, suffix="rois_convert")
    one, five = i64(ctx, [1], suffix="one"), i64(ctx, [5], suffix="five")
    step, axis = i64(ctx, [1], suffix="step"), i64(ctx, [1], suffix="axis")
    corners = ctx.op(Slice(), rois, one, five, step, axis, suffix="corners")
    batch = ctx.op(Slice(), rois, i64(ctx, [0], suffix="zero"), one, step, axis, suffix="batch_column")
    batch_indices = cast(ctx, ctx.op(Squeeze(), batch, i64(ctx, [1], suffix="squeeze_axis"), suffix="batch_float"),
                         ElementType.i64, suffix="batch_indices")
    op = ROIAlign(pooled_h=ctx.attrs.int("pooled_height"), pooled_w=ctx.attrs.int("pooled_width"),
                  sampling_ratio=max(0, ctx.attrs.int("sampling_ratio")),
                  spatial_scale=ctx.attrs.float("spatial_scale"), mode="avg",
                  aligned_mode="half_pixel_for_nn" if ctx.attrs.bool("aligned") else "asymmetric")
    return [ctx.op(op, data, corners, batch_indices, suffix="op")]


def _grid_sample(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``input`` ``[N, C, H, W]`` sampled at ``grid`` ``[N, H_out, W_out, 2]`` (x, y in [-1, 1])."""
    data = tensor(ctx, "input")
    if data.data.shape is not None and len(data.data.shape) != 4:
        raise ctx.attrs.bad("input", f"rank {len(data.data.shape)}", "OpenVINO's GridSample samples 4-D data only")
    mode, padding = ctx.attrs.int("interpolation_mode"), ctx.attrs.int("padding_mode")
    if mode not in range(len(_GRID_MODES)):
        raise ctx.attrs.bad("interpolation_mode", mode, "expected 0 (bilinear), 1 (nearest) or 2 (bicubic)")
    if padding not in range(len(_GRID_PADDINGS)):
        raise ctx.attrs.bad("padding_mode", padding, "expected 0 (zeros), 1 (border) or 2 (reflection)")
    grid = cast(ctx, tensor(ctx, "grid"), data.data.element_type, suffix="grid_convert")
    op = GridSample(align_corners=ctx.attrs.bool("align_corners"), mode=_GRID_MODES[mode],
                    padding_mode=_GRID_PADDINGS[padding])
    return [ctx.op(op, data, grid, suffix="op")]


grid_sampler = aliases("torch", ["aten.grid_sampler.default", "aten.grid_sampler_2d.default"], _grid_sample,
                       versions=TORCH_2_5, produces=[GridSample, Convert])
