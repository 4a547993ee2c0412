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
from irconv.frontend import extractor, i64, input_constant
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    AvgPool,
    BatchToSpace,
    Concat,
    Convert,
    Convolution,
    ConvolutionBackpropData,
    Multiply,
    SpaceToBatch,
    Split,
    Sqrt,
    Squeeze,
)
from irconv_opset.lowering.convolution import (
    ChannelsLastConvolution,
    FilterLayout,
    Window,
    channel_bias,
    channels_last_convolution,
)
from irconv_opset.lowering.layout import LayoutMark
from irconv_opset.lowering.pooling import PoolWindow, avg_pool

from irconv_tflite.extractors._common import auto_pad, declared_shape, fused_activation, known_rank, laid_out
from irconv_tflite.extractors.nn import transposed_convolution


def _space_batch(to_batch: bool):  # type: ignore[no-untyped-def]
    """Inputs: x, block_shape [M], paddings (or crops) [M, 2]; either may be computed."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        rank = known_rank(ctx)
        block_shape = ctx.input_shape(1)
        if block_shape is None or len(block_shape) != 1 or block_shape[0] is None:
            raise ConversionError(f"{ctx.where()}: the block shape (input 1) needs a known length")
        trailing = rank - 1 - int(block_shape[0])
        if trailing < 0:
            raise ConversionError(f"{ctx.where()}: {block_shape[0]} block sizes for a rank-{rank} input")

        def framed(inner: OutPort, fill: int, suffix: str) -> OutPort:
            parts = [i64(ctx, [fill], f"{suffix}_lead"), inner]
            if trailing:
                parts.append(i64(ctx, [fill] * trailing, f"{suffix}_trail"))
            return ctx.op(Concat(axis=0), *parts, suffix=suffix)

        block = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="block_i64")
        pads = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(2), suffix="pads_i64")
        halves = ctx.add(Split(num_splits=2), [pads, i64(ctx, 1, "pair_axis")], suffix="pairs")
        begin = ctx.op(Squeeze(), halves.out_port(0), i64(ctx, [1], "begin_axis"), suffix="begin_inner")
        end = ctx.op(Squeeze(), halves.out_port(1), i64(ctx, [1], "end_axis"), suffix="end_inner")
        op = SpaceToBatch() if to_batch else BatchToSpace()
        inputs = (ctx.input(0), framed(block, 1, "block"), framed(begin, 0, "begin"), framed(end, 0, "end"))
        return [ctx.op(op, *inputs, suffix="rearranged")]

    return extract


_SPACE_BATCH_OPS = [Convert, Split, Squeeze, Concat]
space_to_batch_nd = extractor("tflite", "SPACE_TO_BATCH_ND", _space_batch(True),
                              produces=[SpaceToBatch, *_SPACE_BATCH_OPS])
batch_to_space_nd = extractor("tflite", "BATCH_TO_SPACE_ND", _space_batch(False),
                              produces=[BatchToSpace, *_SPACE_BATCH_OPS])


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


@extractor("tflite", "CONV_3D", produces=[Convolution, Add])
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


@extractor("tflite", "CONV_3D_TRANSPOSE", produces=[ConvolutionBackpropData, Add])
def conv_3d_transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: output shape (NDHWC), filter [D, H, W, O, I], data, optional bias; padding as
    TRANSPOSE_CONV's."""
    place = _marked(ctx)
    conv = transposed_convolution(ctx, _window_3d(ctx), lambda op, inputs: place(op, inputs).out_port(0))
    return [fused_activation(ctx, _with_bias(ctx, conv, 3))]


@extractor("tflite", "L2_POOL_2D", produces=[Multiply, AvgPool, Sqrt])
def l2_pool_2d(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """sqrt(mean of x^2 over each window), padding left out of the mean as TFLite's kernel does."""
    pool = PoolWindow.of((ctx.attrs.int("filter_height"), ctx.attrs.int("filter_width")),
                         (ctx.attrs.int("stride_h", 1), ctx.attrs.int("stride_w", 1)), auto_pad=auto_pad(ctx))
    squared = ctx.op(Multiply(), ctx.input(0), ctx.input(0), suffix="squared")
    mean = avg_pool(ctx, squared, pool, exclude_pad=True, place=lambda op, inputs: laid_out(ctx, op, inputs))
    return [fused_activation(ctx, ctx.op(Sqrt(), mean, suffix="l2"))]
