"""Ops GluonCV-style detection and segmentation exports add to the model-zoo set: topk,
sort, argsort, _arange, _zeros/_ones/_full, _contrib_BilinearResize2D,
_contrib_AdaptiveAvgPooling2D, _contrib_ROIAlign."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, const_like, extractor, f32, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    AdaptiveAvgPool,
    Broadcast,
    Const,
    Convert,
    Gather,
    Interpolate,
    ROIAlign,
    ScatterElementsUpdate,
    ShapeOf,
    Slice,
    Subtract,
    TopK,
)
from irconv_opset.build import shape_of


def _dtype(ctx: ExtractContext, default: str = "float32") -> np.dtype:
    name = ctx.attrs.str("dtype", default)
    try:
        return np.dtype(name)
    except TypeError:
        raise ctx.attrs.bad("dtype", name, "not a NumPy dtype") from None


def _sorted(ctx: ExtractContext, k: int | None, ascending: bool, axis: int) -> Node:
    """TopK over ``axis`` (all of it when ``k`` is None), sorted by value."""
    shape = ctx.input_shape(0)
    size = None if shape is None else shape[axis]
    if k is None or k <= 0:
        if size is None:
            raise ConversionError(f"{ctx.where()}: sorting axis {axis} whole needs its size to be static, got {shape}")
        k = int(size)
    op = TopK(axis=axis, mode="min" if ascending else "max", sort="value", index_element_type=ElementType.i64,
              stable=True)
    return ctx.add(op, [ctx.input(0), i64(ctx, k, "k")], "topk")


def _indices(ctx: ExtractContext, port: OutPort) -> OutPort:
    """Indices as MXNet returns them: in ``dtype`` (float32 by default)."""
    return ctx.op(Convert(destination_type=ElementType.from_numpy(_dtype(ctx))), port, suffix="indices")


@extractor("mxnet", "topk", produces=[TopK, Convert, ShapeOf, Broadcast, ScatterElementsUpdate])
def topk(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ret_typ: indices (default), value, both ([value, indices]) or mask (1 at the top k)."""
    if "axis" in ctx.attrs.names() and "axis" not in ctx.attrs:  # axis=None: the flattened input
        raise ctx.attrs.bad("axis", None, "topk over the flattened input is not supported")
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), require_rank(ctx))
    top = _sorted(ctx, ctx.attrs.int("k", 1), ctx.attrs.bool("is_ascend", False), axis)
    kind = ctx.attrs.choice("ret_typ", ["indices", "value", "both", "mask"], "indices")
    if kind == "value":
        return [top.out_port(0)]
    if kind == "indices":
        return [_indices(ctx, top.out_port(1))]
    if kind == "both":
        return [top.out_port(0), _indices(ctx, top.out_port(1))]
    x = ctx.input(0)  # mask
    zeros = ctx.op(Broadcast(), const_like(ctx, 0, x, "zero"), shape_of(ctx, x), suffix="zeros")
    ones = ctx.op(Broadcast(), const_like(ctx, 1, x, "one"), shape_of(ctx, top.out_port(1), "top_shape"), suffix="ones")
    return [ctx.op(ScatterElementsUpdate(), zeros, top.out_port(1), ones, i64(ctx, axis, "axis"))]


@extractor("mxnet", "sort", produces=[TopK])
def sort(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), require_rank(ctx))
    return [_sorted(ctx, None, ctx.attrs.bool("is_ascend", True), axis).out_port(0)]


@extractor("mxnet", "argsort", produces=[TopK, Convert])
def argsort(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), require_rank(ctx))
    return [_indices(ctx, _sorted(ctx, None, ctx.attrs.bool("is_ascend", True), axis).out_port(1))]


@extractor("mxnet", "_arange", produces=[Const])
def arange(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``_arange(start, stop, step, repeat)``: a constant (stop None counts from 0 to start)."""
    if ctx.attrs.bool("infer_range", False):
        raise ctx.attrs.bad("infer_range", True, "a range inferred from its consumer is not supported")
    start, stop = ctx.attrs.float("start", 0.0), ctx.attrs.float("stop", None)
    if stop is None:
        start, stop = 0.0, start
    values = np.arange(start, stop, ctx.attrs.float("step", 1.0)).astype(_dtype(ctx))
    return [ctx.const(np.repeat(values, ctx.attrs.int("repeat", 1)), suffix="range")]


@extractor("mxnet", "_zeros", produces=[Const])
def zeros(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _fill(ctx, 0.0)


@extractor("mxnet", "_ones", produces=[Const])
def ones(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _fill(ctx, 1.0)


@extractor("mxnet", "_full", produces=[Const])
def full(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _fill(ctx, ctx.attrs.float("value"))


def _fill(ctx: ExtractContext, value: float) -> list[OutPort]:
    """A constant ``value`` of a static ``shape``."""
    return [ctx.const(np.full(ctx.attrs.ints("shape", []), value, _dtype(ctx)), suffix="value")]


def bilinear_resize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """BilinearResize2D to ``height``/``width`` (or scaled, or like the second input)."""
    mode = ctx.attrs.choice("mode", ["size", "like"], "size")  # odd_scale, to_even_*, ...: not supported
    x = ctx.input(0)
    corners = ctx.attrs.bool("align_corners", True)
    op = Interpolate(mode="linear", shape_calculation_mode="sizes",
                     coordinate_transformation_mode="align_corners" if corners else "half_pixel")
    if mode == "like":
        sizes = ctx.op(Gather(), shape_of(ctx, ctx.input(1), "like_shape"), i64(ctx, [2, 3], "hw"),
                       i64(ctx, 0, "axis"), suffix="sizes")
        return [ctx.op(op, x, sizes, i64(ctx, [2, 3], "axes"))]
    shape = ctx.input_shape(0)
    height, width = ctx.attrs.int("height", 1), ctx.attrs.int("width", 1)
    scale_h, scale_w = ctx.attrs.float("scale_height", None), ctx.attrs.float("scale_width", None)
    if scale_h is not None or scale_w is not None:
        if shape is None or shape[2] is None or shape[3] is None:
            raise ConversionError(f"{ctx.where()}: scaling needs a static input height and width, got {shape}")
        if scale_h is not None:
            height = int(shape[2] * scale_h)
        if scale_w is not None:
            width = int(shape[3] * scale_w)
    return [ctx.op(op, x, i64(ctx, [height, width], "sizes"), i64(ctx, [2, 3], "axes"))]


def adaptive_avg_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    size = ctx.attrs.ints("output_size", [1])
    if len(size) == 1:  # a square output
        size = size * 2
    return [ctx.op(AdaptiveAvgPool(), ctx.input(0), i64(ctx, size, "output_size"))]


def roi_align(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ROIAlign over rois [R, 5] (batch index, x1, y1, x2, y2); ``aligned`` shifts by half a pixel."""
    if ctx.attrs.bool("position_sensitive", False):
        raise ctx.attrs.bad("position_sensitive", True, "position-sensitive ROIAlign is not supported")
    pooled = ctx.attrs.ints("pooled_size", length=2)
    rois = ctx.input(1)
    boxes = ctx.op(Slice(), rois, i64(ctx, [1]), i64(ctx, [5]), i64(ctx, [1]), i64(ctx, [1]), suffix="boxes")
    batch = ctx.op(Gather(), rois, i64(ctx, 0), i64(ctx, 1, "axis"), suffix="batch")
    batch = ctx.op(Convert(destination_type=ElementType.i32), batch, suffix="batch_i32")
    ratio = ctx.attrs.int("sample_ratio", -1)
    scale = ctx.attrs.float("spatial_scale")
    if ctx.attrs.bool("aligned", False):
        # MXNet samples at x * scale - 0.5: shift the boxes by half a feature pixel.
        boxes = ctx.op(Subtract(), boxes, f32(ctx, 0.5 / scale, suffix="half_pixel"), suffix="aligned")
    op = ROIAlign(pooled_h=pooled[0], pooled_w=pooled[1], sampling_ratio=max(ratio, 0), spatial_scale=scale,
                  mode="avg", aligned_mode="asymmetric")
    return [ctx.op(op, ctx.input(0), boxes, batch)]



BILINEAR_RESIZE = aliases("mxnet", ["_contrib_BilinearResize2D", "BilinearResize2D"], bilinear_resize,
                          produces=[ShapeOf, Gather, Interpolate])
ADAPTIVE_AVG_POOL = aliases("mxnet", ["_contrib_AdaptiveAvgPooling2D", "AdaptiveAvgPooling2D"], adaptive_avg_pool,
                            produces=[AdaptiveAvgPool])
ROI_ALIGN = aliases("mxnet", ["_contrib_ROIAlign", "ROIAlign"], roi_align,
                    produces=[Slice, Gather, Convert, Subtract, ROIAlign])
