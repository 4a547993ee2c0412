"""Blocks of space and batch, 3-D convolutions and L2 pooling.

SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND name one block size and one pad pair per spatial
axis (the M axes after the batch); OpenVINO's ops take them for every axis, so 1 and 0
frame them (the batch, and any trailing axes such as channels): they work on NHWC as is.
3-D convolutions read NDHWC data and are marked for the layout plugin like the 2-D ones.
"""

from __future__ import annotations

from collections.abc import Callable

from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, extractor, i64, input_constant
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    BatchToSpace,
    Concat,
    Convert,
    Multiply,
    SpaceToBatch,
    Split,
    Sqrt,
    Squeeze,
)
from irconv_opset.lowering.convolution import (
    CHANNEL_BIAS_OPS,
    CHANNELS_LAST_CONVOLUTION_OPS,
    CONVOLUTION_BACKPROP_OPS,
    ChannelsLastConvolution,
    FilterLayout,
    Window,
    channel_bias,
    channels_last_convolution,
)
from irconv_opset.lowering.layout import LayoutMark
from irconv_opset.lowering.pooling import AVG_POOL_OPS, PoolWindow, avg_pool

from irconv_tflite.extractors._common import (
    FUSED_ACTIVATION_OPS,
    auto_pad,
    declared_shape,
    fused_activation,
    known_rank,
    laid_out,
)
from irconv_tflite.extractors.nn import transposed_convolution


def _framed(ctx: ExtractContext, inner: OutPort, fill: int, trailing: int, suffix: str) -> OutPort:
    """``inner`` (one value per spatial axis) framed with ``fill`` for the batch and the
    ``trailing`` axes."""
    parts = [i64(ctx, [fill], f"{suffix}_lead"), inner]
    if trailing:
        parts.append(i64(ctx, [fill] * trailing, f"{suffix}_trail"))
    return ctx.op(Concat(axis=0), *parts, suffix=suffix)


def space_batch(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND. Inputs: x, block_shape [M], paddings (or
    crops) [M, 2]; either may be computed."""
    rank = known_rank(ctx)
    block_shape = ctx.input_shape(1)
    if block_shape is None or len(block_shape) != 1 or block_shape[0] is None:
        raise ConversionError(f"{ctx.where()}: the block shape (input 1) needs a known length")
    trailing = rank - 1 - int(block_shape[0])
    if trailing < 0:
        raise ConversionError(f"{ctx.where()}: {block_shape[0]} block sizes for a rank-{rank} input")
    block = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="block_i64")
    pads = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(2), suffix="pads_i64")
    halves = ctx.add(Split(num_splits=2), [pads, i64(ctx, 1, "pair_axis")], suffix="pairs")
    begin = ctx.op(Squeeze(), halves.out_port(0), i64(ctx, [1], "begin_axis"), suffix="begin_inner")
    end = ctx.op(Squeeze(), halves.out_port(1), i64(ctx, [1], "end_axis"), suffix="end_inner")
    op = SpaceToBatch() if ctx.source_op.op_type == "SPACE_TO_BATCH_ND" else BatchToSpace()
    inputs = (ctx.input(0), _framed(ctx, block, 1, trailing, "block"), _framed(ctx, begin, 0, trailing, "begin"),
              _framed(ctx, end, 0, trailing, "end"))
    return [ctx.op(op, *inputs, suffix="rearranged")]


_SPACE_BATCH_OPS = [Convert, Split, Squeeze, Concat]
SPACE_TO_BATCH_ND = aliases("tflite", ["SPACE_TO_BATCH_ND"], space_batch, produces=[SpaceToBatch, *_SPACE_BATCH_OPS])
BATCH_TO_SPACE_ND = aliases("tflite", ["BATCH_TO_SPACE_ND"], space_batch, produces=[BatchToSpace, *_SPACE_BATCH_OPS])


def _window_3d(ctx: ExtractContext) -> Window:
    """Conv3DOptions: strides, dilation factors and padding."""
    return Window.of((ctx.attrs.int("stride_d", 1), ctx.attrs.int("stride_h", 1), ctx.attrs.int("stride_w", 1)),
                     (ctx.attrs.int("dilation_d_factor", 1), ctx.attrs.int("dilation_h_factor", 1),
                      ctx.attrs.int("dilation_w_factor", 1)), auto_pad=auto_pad(ctx))


def _with_bias(ctx: ExtractContext, port: OutPort, idx: int) -> OutPort:
    return channel_bias(ctx, port, ctx.input(idx), channel_axis=-1) if ctx.has_input(idx) else port


def _marked(ctx: ExtractContext) -> Callable[[Op, list[OutPort]], Node]:
    """Places a 3-D op on NDHWC data: marked for the layout plugin."""
    return lambda op, inputs: laid_out(ctx, op, inputs, LayoutMark.NDHWC)


@extractor("tflite", "CONV_3D", produces=[*CHANNELS_LAST_CONVOLUTION_OPS, *CHANNEL_BIAS_OPS, *FUSED_ACTIVATION_OPS])
def conv_3d(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Filter [D, H, W, I, O] -> [O, I, D, H, W]; optional bias at input 2."""
    filters = input_constant(ctx, 1, "the filter")
    data_shape = declared_shape(ctx, 0)
    if data_shape and data_shape[-1] is not None and int(data_shape[-1]) != filters.shape[3]:
        raise ConversionError(f"{ctx.where()}: a grouped 3-D convolution ({data_shape[-1]} input channels, a filter "
                              f"for {filters.shape[3]}) is not supported by irconv's TFLite front end")
    spec = ChannelsLastConvolution(_window_3d(ctx), filters, FilterLayout.SPATIAL_IN_OUT)
    conv = channels_last_convolution(ctx, ctx.input(0), spec, _marked(ctx))
    return [fused_activation(ctx, _with_bias(ctx, conv.out_port(0), 2))]


@extractor("tflite", "CONV_3D_TRANSPOSE", produces=[*CONVOLUTION_BACKPROP_OPS, *CHANNEL_BIAS_OPS,
                                                         *FUSED_ACTIVATION_OPS])
def conv_3d_transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: output shape (NDHWC), filter [D, H, W, O, I], data, optional bias; padding as
    TRANSPOSE_CONV's."""
    place = _marked(ctx)
    conv = transposed_convolution(ctx, _window_3d(ctx), lambda op, inputs: place(op, inputs).out_port(0))
    return [fused_activation(ctx, _with_bias(ctx, conv, 3))]


@extractor("tflite", "L2_POOL_2D", produces=[Multiply, *AVG_POOL_OPS, Sqrt, *FUSED_ACTIVATION_OPS])
def l2_pool_2d(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """sqrt(mean of x^2 over each window), padding left out of the mean as TFLite's kernel does."""
    pool = PoolWindow.of((ctx.attrs.int("filter_height"), ctx.attrs.int("filter_width")),
                         (ctx.attrs.int("stride_h", 1), ctx.attrs.int("stride_w", 1)), auto_pad=auto_pad(ctx))
    squared = ctx.op(Multiply(), ctx.input(0), ctx.input(0), suffix="squared")
    mean = avg_pool(ctx, squared, pool, exclude_pad=True, place=lambda op, inputs: laid_out(ctx, op, inputs))
    return [fused_activation(ctx, ctx.op(Sqrt(), mean, suffix="l2"))]
