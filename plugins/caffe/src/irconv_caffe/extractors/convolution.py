"""Convolution, Deconvolution and InnerProduct."""

from __future__ import annotations

import math
from collections.abc import Sequence

from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, f32, i64, normalize_axis, per_axis
from irconv.graph import Node, OutPort
from irconv_opset import (
    Add,
    Convolution,
    ConvolutionBackpropData,
    ExtractImagePatches,
    GroupConvolution,
    GroupConvolutionBackpropData,
    MatMul,
    Pad,
    Reshape,
    Transpose,
)
from irconv_opset.lowering.convolution import (
    Window,
    channel_bias,
    convolution,
    convolution_backprop,
)

from irconv_caffe.attributes import ParamBlock
from irconv_caffe.layer import CaffeLayer


def pick(values: Sequence[int], index: int, default: int) -> int:
    """Caffe's repeated geometry fields: none -> default, one -> all dims, else per dim."""
    if not values:
        return default
    return int(values[index] if len(values) > 1 else values[0])


def conv_geometry(ctx: ExtractContext, p: ParamBlock, spatial: int) -> tuple[tuple[int, ...], Window]:
    """The kernel size and the window (strides, symmetric pads, dilations) per spatial dim,
    from Caffe's several spellings."""
    if p.is_set("kernel_h") or p.is_set("kernel_w"):
        kernel = [p.kernel_h, p.kernel_w]
    else:
        kernel = [pick(p.kernel_size, i, 0) for i in range(spatial)]
    if p.is_set("stride_h") or p.is_set("stride_w"):
        strides = [p.stride_h or 1, p.stride_w or 1]
    else:
        strides = [pick(p.stride, i, 1) for i in range(spatial)]
    explicit_pads = p.is_set("pad_h") or p.is_set("pad_w")
    pads = [p.pad_h, p.pad_w] if explicit_pads else [pick(p.pad, i, 0) for i in range(spatial)]
    dilations = [pick(p.dilation, i, 1) for i in range(spatial)]
    if len(kernel) != spatial or any(k <= 0 for k in kernel):
        raise ConversionError(f"{ctx.where()}: kernel size {kernel} does not fit {spatial} spatial dims")
    return tuple(kernel), Window.of(strides, dilations, pads)


def _spatial_rank(ctx: ExtractContext) -> tuple[int | None, int]:
    shape = ctx.input_shape(0)
    if shape is None:
        raise ConversionError(f"{ctx.where()}: the input rank is unknown; give the input a shape with --input")
    if ctx.attrs.int("convolution_param.axis") not in (1, -len(shape) + 1):
        raise ConversionError(f"{ctx.where()}: only channel axis 1 is supported")
    return shape[1], len(shape) - 2


def _convolution(ctx: ExtractContext, transposed: bool) -> list[OutPort]:
    """The steps both layers share: geometry, weights (grouped when ``group`` > 1), bias.

    Caffe stores a convolution's weights as (out, in/group, *kernel) and a
    deconvolution's as (in, out/group, *kernel), the layouts of OpenVINO's plain kernels.
    """
    layer = ctx.source_as(CaffeLayer)
    p = ctx.attrs.required("convolution_param")
    channels, spatial = _spatial_rank(ctx)
    kernel, window = conv_geometry(ctx, p, spatial)
    group = p.group or 1
    out_channels = p.num_output
    if out_channels % group or (channels is not None and channels % group):
        raise ConversionError(
            f"{ctx.where()}: group {group} does not divide the {channels} input / {out_channels} output channels"
        )
    per_group_in = None if channels is None else channels // group
    leading = (channels, out_channels // group) if transposed else (out_channels, per_group_in)
    weights = ctx.const(layer.blob(0, (*leading, *kernel)), suffix="weights")
    if transposed:
        out = convolution_backprop(ctx, ctx.input(0), weights, window, groups=group)
    else:
        out = convolution(ctx, ctx.input(0), weights, window, group)
    if p.bias_term:
        bias = ctx.const(layer.blob(1, (out_channels,)), suffix="bias")
        out = channel_bias(ctx, out, bias, spatial + 2)
    return [out]


@extractor("caffe", "Convolution", produces=[Convolution, GroupConvolution, Add])  # constant weights and bias: folded
def extract_convolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Groups become GroupConvolution (depthwise included); dilation, rectangular kernels; bias added."""
    return _convolution(ctx, transposed=False)


@extractor("caffe", "Deconvolution", produces=[ConvolutionBackpropData, GroupConvolutionBackpropData, Add])
def extract_deconvolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Caffe's (in, out/group, kh, kw) weights; groups become GroupConvolutionBackpropData."""
    return _convolution(ctx, transposed=True)


@extractor("caffe", "InnerProduct", produces=[Reshape, MatMul, Add])
def extract_inner_product(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Flattens from ``axis`` on, then MatMul with the (transposed unless ``transpose``) weights."""
    layer = ctx.source_as(CaffeLayer)
    p = ctx.attrs.required("inner_product_param")
    shape = ctx.input_shape(0)
    rank = len(shape) if shape is not None else None
    axis = p.axis if rank is None else normalize_axis(ctx, p.axis, rank)
    if axis < 0:
        raise ConversionError(f"{ctx.where()}: a negative axis needs a known input rank")
    inner: int | None = None
    if shape is not None and all(d is not None for d in shape[axis:]):
        inner = math.prod(int(d or 0) for d in shape[axis:])
    expected = (inner, p.num_output) if p.transpose else (p.num_output, inner)
    weights = layer.blob(0, expected)
    data = ctx.input(0)
    if rank != axis + 1:
        # Caffe flattens everything from `axis` on: keep the leading dims, merge the rest.
        target = i64(ctx, [0] * axis + [-1], suffix="flat_shape")
        data = ctx.op(Reshape(special_zero=True), data, target, suffix="flatten")
    out = ctx.op(
        MatMul(transpose_a=False, transpose_b=not p.transpose),
        data,
        ctx.const(weights, suffix="weights"),
        suffix="matmul",
    )
    if p.bias_term:
        bias = layer.blob(1, (p.num_output,))
        out = ctx.op(Add(), out, ctx.const(per_axis(bias, 0, 1), suffix="bias"), suffix="bias_add")
    return [out]


@extractor("caffe", "Im2col", produces=[Pad, ExtractImagePatches, Reshape, Transpose])
def extract_im2col(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Patches as channels, Caffe's order (channel-major, then kernel row and column)."""
    p = ctx.attrs.required("convolution_param")
    shape = ctx.input_shape(0)
    dims = [d for d in shape[1:] if d is not None] if shape is not None and len(shape) == 4 else []
    if len(dims) != 3:
        raise ConversionError(f"{ctx.where()}: Im2col needs a 4-D input with static C, H, W; got {shape}")
    channels, height, width = dims
    kernel, window = conv_geometry(ctx, p, 2)
    strides, pads, dilations = window.strides, window.pads_begin, window.dilations
    data = ctx.input(0)
    if any(pads):
        begin = i64(ctx, [0, 0, *pads], suffix="pads")
        data = ctx.op(
            Pad(pad_mode="constant"), data, begin, begin, f32(ctx, 0, suffix="zero"), suffix="pad"
        )
    out = [
        (size + 2 * pad - (dilation * (k - 1) + 1)) // stride + 1
        for size, pad, dilation, k, stride in zip((height, width), pads, dilations, kernel, strides, strict=True)
    ]
    extract = ExtractImagePatches(sizes=list(kernel), strides=list(strides), rates=list(dilations), auto_pad="valid")
    patches = ctx.op(extract, data, suffix="patches")
    # OpenVINO orders patch channels (row, column, channel); Caffe (channel, row, column).
    cells = kernel[0] * kernel[1]
    split = ctx.op(
        Reshape(special_zero=True),
        patches,
        i64(ctx, [0, cells, channels, *out], suffix="split_shape"),
        suffix="split",
    )
    swapped = ctx.op(Transpose(), split, i64(ctx, [0, 2, 1, 3, 4], suffix="order"), suffix="transpose")
    return [
        ctx.op(
            Reshape(special_zero=True),
            swapped,
            i64(ctx, [0, channels * cells, *out], suffix="shape"),
            suffix="merge",
        )
    ]

