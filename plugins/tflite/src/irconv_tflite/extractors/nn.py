"""Convolutions, pooling, fully connected, normalisation and resizing.

TFLite computes NHWC: spatial ops are marked for the layout plugin, which wraps them in
transposes and cancels those between neighbours, so a CNN keeps at most one at its input.
Weights are rearranged here into the IR's forms: Conv filters [O, H, W, I] -> [O, I, H, W],
depthwise filters [1, H, W, C*M] -> GroupConvolution's [C, M, 1, H, W].
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, input_constant
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Convert,
    DepthToSpace,
    GroupConvolution,
    Interpolate,
    LogSoftmax,
    MatMul,
    MaxPool,
    Multiply,
    NormalizeL2,
    Reshape,
    SoftMax,
    SpaceToDepth,
)
from irconv_opset.lowering.convolution import (
    CHANNEL_BIAS_OPS,
    CHANNELS_LAST_CONVOLUTION_OPS,
    CONVOLUTION_BACKPROP_OPS,
    ChannelsLastConvolution,
    FilterLayout,
    PadSplit,
    Window,
    channel_bias,
    channels_last_convolution,
    convolution_backprop,
    filters_first,
    full_transposed_size,
    split_padding,
)
from irconv_opset.lowering.normalization import CHANNELS_LAST_LRN_OPS, channels_last_lrn
from irconv_opset.lowering.pooling import AVG_POOL_OPS, PoolWindow, avg_pool, max_pool
from irconv_opset.lowering.resize import tf_resize_coordinates
from irconv_opset.lowering.softmax import softmax as softmax_of

from irconv_tflite.extractors._common import (
    FUSED_ACTIVATION_OPS,
    auto_pad,
    declared_shape,
    fused_activation,
    input_tensor,
    known_rank,
    laid_out,
    record_int8_weights,
    whole,
)
from irconv_tflite.extractors.integer import INTEGER_OPS, WeightedInteger, integers


def _bias(ctx: ExtractContext, port: OutPort, idx: int) -> OutPort:
    """``port`` plus the optional bias at input ``idx`` (per output channel, last axis)."""
    if not ctx.has_input(idx):
        return port
    return channel_bias(ctx, port, ctx.input(idx), channel_axis=-1)


def _window(ctx: ExtractContext) -> Window:
    """Conv2DOptions/DepthwiseConv2DOptions: stride, dilation factor and padding."""
    return Window.of((ctx.attrs.int("stride_h", 1), ctx.attrs.int("stride_w", 1)),
                     (ctx.attrs.int("dilation_h_factor", 1), ctx.attrs.int("dilation_w_factor", 1)),
                     auto_pad=auto_pad(ctx))


def _place(ctx: ExtractContext) -> Callable[[Op, list[OutPort]], Node]:
    return lambda op, inputs: laid_out(ctx, op, inputs)


@extractor("tflite", "CONV_2D", produces=[*CHANNELS_LAST_CONVOLUTION_OPS, *CHANNEL_BIAS_OPS,
                                                 *FUSED_ACTIVATION_OPS, *INTEGER_OPS])
def conv_2d(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A filter [O, H, W, I] on an input of I*G channels: G > 1 is a grouped convolution."""
    filters = ctx.input_value(1)
    data_shape = declared_shape(ctx, 0)
    channels = data_shape[-1] if data_shape else None
    if filters is None:
        spec = ChannelsLastConvolution(_window(ctx), ctx.input(1), FilterLayout.OUT_SPATIAL_IN)
        conv = channels_last_convolution(ctx, ctx.input(0), spec, _place(ctx))
        return [fused_activation(ctx, _bias(ctx, conv.out_port(0), 2))]
    out_channels, h, w, per_group = filters.shape
    groups = 1 if channels is None or channels == per_group else channels // per_group
    integer = WeightedInteger.of(ctx, output_axis=0, bias_index=2)
    data = ctx.input(0) if integer is None else integers(ctx, 0, integer.data)
    weights = filters if integer is None else integer.weights
    spec = ChannelsLastConvolution(_window(ctx), weights, FilterLayout.OUT_SPATIAL_IN, groups)
    conv = channels_last_convolution(ctx, data, spec, _place(ctx))
    scale_shape = (out_channels, 1, 1, 1) if groups == 1 else (groups, out_channels // groups, 1, 1, 1)
    record_int8_weights(ctx, conv, input_tensor(ctx, 1), scale_shape, integer is not None)
    if integer is not None:
        return [integer.finish(ctx, conv.out_port(0))]
    return [fused_activation(ctx, _bias(ctx, conv.out_port(0), 2))]


@extractor("tflite", "DEPTHWISE_CONV_2D", produces=[GroupConvolution, *CHANNEL_BIAS_OPS, *FUSED_ACTIVATION_OPS,
                                                           *INTEGER_OPS])
def depthwise_conv_2d(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Filter [1, H, W, C*M] (output channel c*M + m reads input channel c)."""
    filters = input_constant(ctx, 1, "the depthwise filter")
    _, h, w, total = filters.shape
    data_shape = declared_shape(ctx, 0)
    if data_shape and data_shape[-1]:
        channels = int(data_shape[-1])
    else:
        channels = total // max(ctx.attrs.int("depth_multiplier", 1), 1)
    multiplier = total // channels
    integer = WeightedInteger.of(ctx, output_axis=3, bias_index=2)
    data = ctx.input(0) if integer is None else integers(ctx, 0, integer.data)
    filters = filters if integer is None else integer.weights
    spec = ChannelsLastConvolution(_window(ctx), filters.reshape(h, w, channels, multiplier),
                                   FilterLayout.SPATIAL_CHANNEL_MULTIPLIER)
    conv = channels_last_convolution(ctx, data, spec, _place(ctx))
    record_int8_weights(ctx, conv, input_tensor(ctx, 1), (channels, multiplier, 1, 1, 1), integer is not None)
    if integer is not None:
        return [integer.finish(ctx, conv.out_port(0))]
    return [fused_activation(ctx, _bias(ctx, conv.out_port(0), 2))]


def transposed_convolution(ctx: ExtractContext, window: Window, place: Callable[[Op, list[OutPort]], OutPort]
                           ) -> OutPort:
    """TRANSPOSE_CONV and CONV_3D_TRANSPOSE: inputs the output shape (channels last), the
    filter [O, k..., I] (3-D: [k..., O, I]), the data. SAME: OpenVINO's ``same_lower`` with the
    requested size puts the forward convolution's smaller half of padding first, as TFLite
    does. VALID: no padding; a requested size beyond the natural one is ``output_padding``."""
    sizes = input_constant(ctx, 0, "the output shape").reshape(-1)
    filters = input_constant(ctx, 1, "the filter")
    spatial = window.spatial
    layout = FilterLayout.OUT_SPATIAL_IN_TRANSPOSED if spatial == 2 else FilterLayout.SPATIAL_OUT_IN
    kernel = filters.shape[1:3] if spatial == 2 else filters.shape[:3]
    weights = filters_first(ctx, filters, layout)
    out_spatial = [int(s) for s in sizes[1 : 1 + spatial]]
    if window.auto_pad == "same_upper":
        same = Window.of(window.strides, window.dilations, auto_pad="same_lower")
        output_shape = i64(ctx, out_spatial, suffix="output_shape")
        return convolution_backprop(ctx, ctx.input(2), weights, same, output_shape=output_shape, place=place)
    data_shape = declared_shape(ctx, 2)
    data = [int(n) for n in (data_shape or ())[1 : 1 + spatial] if n is not None]
    if len(data) != spatial:
        sizes_named = "height and width" if spatial == 2 else "depth, height and width"
        raise ctx.attrs.bad("padding", "VALID", f"the input's {sizes_named} must be known")
    # never cropped: a requested size below the natural one keeps the natural one
    totals = [min(full_transposed_size(n, k, s, d) - o, 0)
              for n, k, s, d, o in zip(data, kernel, window.strides, window.dilations, out_spatial, strict=True)]
    padding = split_padding(totals, PadSplit.END)
    return convolution_backprop(ctx, ctx.input(2), weights, window, padding.output_padding, place=place)


@extractor("tflite", "TRANSPOSE_CONV", produces=[*CONVOLUTION_BACKPROP_OPS, *CHANNEL_BIAS_OPS,
                                                      *FUSED_ACTIVATION_OPS])
def transpose_conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: output shape (NHWC), filter [O, H, W, I], data, optional bias."""
    window = Window.of((ctx.attrs.int("stride_h", 1), ctx.attrs.int("stride_w", 1)), auto_pad=auto_pad(ctx))
    conv = transposed_convolution(ctx, window, lambda op, inputs: laid_out(ctx, op, inputs).out_port(0))
    return [fused_activation(ctx, _bias(ctx, conv, 3))]


@extractor("tflite", "FULLY_CONNECTED", produces=[MatMul, Reshape, *CHANNEL_BIAS_OPS, *FUSED_ACTIVATION_OPS,
                                                       *INTEGER_OPS])
def fully_connected(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x [..., K] (flattened to [-1, K] unless keep_num_dims) times weights [N, K]^T."""
    if ctx.attrs.int("weights_format", 0) != 0:  # SHUFFLED4x16INT8
        raise ctx.attrs.bad("weights_format", ctx.attrs.int("weights_format"), "only the default layout is read")
    weights_shape = ctx.input_shape(1)
    if weights_shape is None or weights_shape[-1] is None:
        raise ctx.attrs.bad("weights", "unknown shape", "the weights' inner size must be known")
    integer = WeightedInteger.of(ctx, output_axis=0, bias_index=2) if ctx.input_value(1) is not None else None
    data = ctx.input(0) if integer is None else integers(ctx, 0, integer.data)
    keep = ctx.attrs.bool("keep_num_dims", False)
    if not keep and ctx.input_rank(0) != 2:
        data = ctx.op(Reshape(special_zero=False), data, i64(ctx, [-1, int(weights_shape[-1])]), suffix="flatten")
    weights = ctx.input(1) if integer is None else ctx.const(integer.weights, suffix="weights")
    matmul = ctx.add(MatMul(transpose_a=False, transpose_b=True), [data, weights], suffix="MatMul")
    record_int8_weights(ctx, matmul, input_tensor(ctx, 1), (-1, 1), integer is not None)
    if integer is not None:
        return [integer.finish(ctx, matmul.out_port(0))]
    return [fused_activation(ctx, _bias(ctx, matmul.out_port(0), 2))]


def pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """AVERAGE_POOL_2D / MAX_POOL_2D (Pool2DOptions) onto the shared pooling lowering."""
    window = PoolWindow.of((ctx.attrs.int("filter_height"), ctx.attrs.int("filter_width")),
                           (ctx.attrs.int("stride_h", 1), ctx.attrs.int("stride_w", 1)), auto_pad=auto_pad(ctx))
    if ctx.source_op.op_type == "AVERAGE_POOL_2D":
        pooled = avg_pool(ctx, ctx.input(0), window, exclude_pad=True, place=_place(ctx))
    else:
        pooled = max_pool(ctx, ctx.input(0), window, place=_place(ctx)).out_port(0)
    return [fused_activation(ctx, pooled)]


AVERAGE_POOL_2D = aliases("tflite", ["AVERAGE_POOL_2D"], pool, produces=[*AVG_POOL_OPS, *FUSED_ACTIVATION_OPS])
MAX_POOL_2D = aliases("tflite", ["MAX_POOL_2D"], pool, produces=[MaxPool, *FUSED_ACTIVATION_OPS])


@extractor("tflite", "SOFTMAX", produces=[SoftMax, Multiply])
def softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """softmax(beta * x) over the last axis."""
    beta = ctx.attrs.float("beta", 1.0)
    data = ctx.input(0)
    if beta != 1.0:
        data = ctx.op(Multiply(), data, ctx.const(np.float32(beta), suffix="beta"), suffix="scaled")
    return [softmax_of(ctx, data, -1)]


@extractor("tflite", "LOG_SOFTMAX", produces=[LogSoftmax])
def log_softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [softmax_of(ctx, ctx.input(0), -1, log=True)]


@extractor("tflite", "L2_NORMALIZATION", produces=[NormalizeL2, *FUSED_ACTIVATION_OPS])
def l2_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = known_rank(ctx)
    axes = i64(ctx, [rank - 1], suffix="axes")
    return [fused_activation(ctx, ctx.op(NormalizeL2(eps=1e-6, eps_mode="max"), ctx.input(0), axes))]


@extractor("tflite", "LOCAL_RESPONSE_NORMALIZATION", produces=[*CHANNELS_LAST_LRN_OPS])
def local_response_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TFLite: x / (bias + alpha * sum(x^2 over 2r+1 channels))^beta, as TensorFlow's LRN."""
    a = ctx.attrs
    return [channels_last_lrn(ctx, ctx.input(0), a.int("radius", 5), a.float("alpha", 1.0), a.float("beta", 0.5),
                              a.float("bias", 1.0))]


#: The Interpolate mode of each resize operator.
_RESIZE_MODES = {"RESIZE_BILINEAR": "linear_onnx", "RESIZE_NEAREST_NEIGHBOR": "nearest"}


def resize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR to the sizes at input 1."""
    mode = _RESIZE_MODES[ctx.source_op.op_type]
    transform, nearest_mode = tf_resize_coordinates(mode == "nearest", ctx.attrs.bool("align_corners", False),
                                                    ctx.attrs.bool("half_pixel_centers", False))
    op = Interpolate(mode=mode, shape_calculation_mode="sizes", coordinate_transformation_mode=transform,
                     nearest_mode=nearest_mode, antialias=False, pads_begin=(0, 0, 0, 0), pads_end=(0, 0, 0, 0))
    sizes = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="sizes")
    # marked NHWC: the layout plugin feeds it NCHW, so the sizes are for axes 2 and 3
    return [laid_out(ctx, op, [ctx.input(0), sizes, i64(ctx, [2, 3], suffix="axes")]).out_port(0)]


RESIZES = aliases("tflite", list(_RESIZE_MODES), resize, produces=[Interpolate, Convert])


def block_rearrangement(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """DEPTH_TO_SPACE / SPACE_TO_DEPTH with TF's block order, marked NHWC."""
    kind = DepthToSpace if ctx.source_op.op_type == "DEPTH_TO_SPACE" else SpaceToDepth
    op = kind(block_size=ctx.attrs.int("block_size"), mode="blocks_first")
    return [laid_out(ctx, op, [ctx.input(0)]).out_port(0)]


DEPTH_TO_SPACE = aliases("tflite", ["DEPTH_TO_SPACE"], block_rearrangement, produces=[DepthToSpace])
SPACE_TO_DEPTH = aliases("tflite", ["SPACE_TO_DEPTH"], block_rearrangement, produces=[SpaceToDepth])


@extractor("tflite", "BATCH_MATMUL", produces=[MatMul])
def batch_matmul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, MatMul(transpose_a=ctx.attrs.bool("adj_x", False), transpose_b=ctx.attrs.bool("adj_y", False)))
