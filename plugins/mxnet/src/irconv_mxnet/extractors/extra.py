"""Ops GluonCV-style detection and segmentation exports add to the model-zoo set: topk,
sort, argsort, _arange, _zeros/_ones/_full, _contrib_BilinearResize2D,
_contrib_AdaptiveAvgPooling2D, _contrib_ROIAlign."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv.types import ElementType

from irconv_mxnet.extractors._common import (
    bad,
    flag,
    i64,
    integer,
    ints,
    mx_op,
    normalize_axis,
    number,
    optional_int,
    rank,
    shape_of,
    text,
    to_type_of,
)


def _dtype(ctx: ExtractContext, default: str = "float32") -> np.dtype:
    name = text(ctx, "dtype", default)
    try:
        return np.dtype(name)
    except TypeError:
        raise bad(ctx, "dtype", name, "not a NumPy dtype") from None


def _sorted(ctx: ExtractContext, k: int | None, ascending: bool, axis: int) -> Node:
    """TopK over ``axis`` (all of it when ``k`` is None), sorted by value."""
    from irconv_opset import TopK

    shape = ctx.input_shape(0)
    size = None if shape is None else shape[axis]
    if k is None or k <= 0:
        if size is None:
            raise bad(ctx, "axis", axis, "sorting a whole axis needs its size to be static")
        k = int(size)
    op = TopK(axis=axis, mode="min" if ascending else "max", sort="value", index_element_type=ElementType.i64,
              stable=True)
    return ctx.add(op, [ctx.input(0), i64(ctx, k, "k")], "topk")


def _indices(ctx: ExtractContext, port: OutPort) -> OutPort:
    """Indices as MXNet returns them: in ``dtype`` (float32 by default)."""
    from irconv_opset import Convert

    return ctx.op(Convert(destination_type=ElementType.from_numpy(_dtype(ctx))), port, suffix="indices")


def topk(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ret_typ: indices (default), value, both ([value, indices]) or mask (1 at the top k)."""
    from irconv_opset import Broadcast, ScatterElementsUpdate

    axis_value = optional_int(ctx, "axis") if ctx.has_attr("axis") else -1
    if axis_value is None:
        raise bad(ctx, "axis", None, "topk over the flattened input is not supported")
    axis = normalize_axis(ctx, axis_value, rank(ctx, 0))
    top = _sorted(ctx, integer(ctx, "k", 1), flag(ctx, "is_ascend", False), axis)
    kind = text(ctx, "ret_typ", "indices")
    if kind == "value":
        return [top.out_port(0)]
    if kind == "indices":
        return [_indices(ctx, top.out_port(1))]
    if kind == "both":
        return [top.out_port(0), _indices(ctx, top.out_port(1))]
    if kind == "mask":
        x = ctx.input(0)
        zeros = ctx.op(Broadcast(), ctx.const(np.zeros((), np.float32)), shape_of(ctx, x), suffix="zeros")
        zeros = to_type_of(ctx, zeros, x, "zeros_typed")
        ones = to_type_of(ctx, ctx.op(Broadcast(), ctx.const(np.ones((), np.float32)),
                                      shape_of(ctx, top.out_port(1), "top_shape"), suffix="ones"), x, "ones_typed")
        return [ctx.op(ScatterElementsUpdate(), zeros, top.out_port(1), ones, i64(ctx, axis, "axis"))]
    raise bad(ctx, "ret_typ", kind, "expected indices, value, both or mask")


def sort(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, integer(ctx, "axis", -1), rank(ctx, 0))
    return [_sorted(ctx, None, flag(ctx, "is_ascend", True), axis).out_port(0)]


def argsort(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, integer(ctx, "axis", -1), rank(ctx, 0))
    return [_indices(ctx, _sorted(ctx, None, flag(ctx, "is_ascend", True), axis).out_port(1))]


def arange(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``_arange(start, stop, step, repeat)``: a constant (stop None counts from 0 to start)."""
    if flag(ctx, "infer_range", False):
        raise bad(ctx, "infer_range", True, "a range inferred from its consumer is not supported")
    start, stop = number(ctx, "start", 0.0), ctx.attr("stop", None)
    if stop is None:
        start, stop = 0.0, start
    values = np.arange(start, float(stop), number(ctx, "step", 1.0)).astype(_dtype(ctx))
    return [ctx.const(np.repeat(values, integer(ctx, "repeat", 1)), suffix="range")]


def fill(value: float | None, node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``_zeros``, ``_ones``, ``_full`` (``value``) of a static ``shape``."""
    shape = ints(ctx, "shape", ())
    fill_value = number(ctx, "value") if value is None else value
    return [ctx.const(np.full(shape, fill_value, _dtype(ctx)), suffix="value")]


def bilinear_resize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """BilinearResize2D to ``height``/``width`` (or scaled, or like the second input)."""
    from irconv_opset import Gather, Interpolate

    mode = text(ctx, "mode", "size")
    x = ctx.input(0)
    corners = flag(ctx, "align_corners", True)
    op = Interpolate(mode="linear", shape_calculation_mode="sizes",
                     coordinate_transformation_mode="align_corners" if corners else "half_pixel")
    if mode == "like":
        sizes = ctx.op(Gather(), shape_of(ctx, ctx.input(1), "like_shape"), i64(ctx, [2, 3], "hw"),
                       i64(ctx, 0, "axis"), suffix="sizes")
        return [ctx.op(op, x, sizes, i64(ctx, [2, 3], "axes"))]
    if mode != "size":
        raise bad(ctx, "mode", mode, "only size and like are supported")
    shape = ctx.input_shape(0)
    height, width = integer(ctx, "height", 1), integer(ctx, "width", 1)
    scale_h, scale_w = ctx.attr("scale_height", None), ctx.attr("scale_width", None)
    if scale_h is not None or scale_w is not None:
        if shape is None or shape[2] is None or shape[3] is None:
            raise bad(ctx, "scale_height", scale_h, "scaling needs a static input height and width")
        if scale_h is not None:
            height = int(shape[2] * float(scale_h))
        if scale_w is not None:
            width = int(shape[3] * float(scale_w))
    return [ctx.op(op, x, i64(ctx, [height, width], "sizes"), i64(ctx, [2, 3], "axes"))]


def adaptive_avg_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import AdaptiveAvgPool

    size = ints(ctx, "output_size", (1,))
    if not size:
        size = (1,)
    if len(size) == 1:
        size = (size[0], size[0])
    return [ctx.op(AdaptiveAvgPool(), ctx.input(0), i64(ctx, list(size), "output_size"))]


def roi_align(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ROIAlign over rois [R, 5] (batch index, x1, y1, x2, y2); ``aligned`` shifts by half a pixel."""
    from irconv_opset import Convert, Gather, ROIAlign, Slice

    if flag(ctx, "position_sensitive", False):
        raise bad(ctx, "position_sensitive", True, "position-sensitive ROIAlign is not supported")
    pooled = ints(ctx, "pooled_size")
    rois = ctx.input(1)
    boxes = ctx.op(Slice(), rois, i64(ctx, [1]), i64(ctx, [5]), i64(ctx, [1]), i64(ctx, [1]), suffix="boxes")
    batch = ctx.op(Gather(), rois, i64(ctx, 0), i64(ctx, 1, "axis"), suffix="batch")
    batch = ctx.op(Convert(destination_type=ElementType.i32), batch, suffix="batch_i32")
    ratio = integer(ctx, "sample_ratio", -1)
    scale = number(ctx, "spatial_scale")
    if flag(ctx, "aligned", False):
        # MXNet samples at x * scale - 0.5: shift the boxes by half a feature pixel.
        from irconv_opset import Subtract

        boxes = ctx.op(Subtract(), boxes, ctx.const(np.float32(0.5 / scale), suffix="half_pixel"), suffix="aligned")
    op = ROIAlign(pooled_h=pooled[0], pooled_w=pooled[-1], sampling_ratio=max(ratio, 0), spatial_scale=scale,
                  mode="avg", aligned_mode="asymmetric")
    return [ctx.op(op, ctx.input(0), boxes, batch)]


def extractors() -> list[Extractor]:
    from functools import partial

    return [
        *mx_op("topk", topk, "TopK"),
        *mx_op("sort", sort, "TopK"),
        *mx_op("argsort", argsort, "TopK, Convert"),
        *mx_op("_arange", arange, "Const"),
        *mx_op("_zeros", partial(fill, 0.0), "Const"),
        *mx_op("_ones", partial(fill, 1.0), "Const"),
        *mx_op("_full", partial(fill, None), "Const"),
        *mx_op(("_contrib_BilinearResize2D", "BilinearResize2D"), bilinear_resize, "Interpolate"),
        *mx_op(("_contrib_AdaptiveAvgPooling2D", "AdaptiveAvgPooling2D"), adaptive_avg_pool, "AdaptiveAvgPool"),
        *mx_op(("_contrib_ROIAlign", "ROIAlign"), roi_align, "ROIAlign"),
    ]
