"""Convolution layers: Conv1D-3D (groups, dilation, causal padding), DepthwiseConv1D/2D,
SeparableConv1D/2D, Conv1D-3DTranspose.

Keras kernels are [spatial..., in, out]; the IR's are [out, in, spatial...] (grouped:
[groups, out/g, in/g, spatial...]). A channels-last layer's op is marked for the layout
plugin, which wraps it in transposes and cancels them between neighbours.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset.lowering.convolution import (
    CHANNEL_BIAS_OPS,
    CHANNELS_LAST_CONVOLUTION_OPS,
    CONVOLUTION_BACKPROP_OPS,
    ChannelsLastConvolution,
    FilterLayout,
    PadSplit,
    Window,
    channels_last_convolution,
    convolution_backprop,
    filters_first,
    split_padding,
)

from irconv_tf.keras_reader.extractors._base import (
    channels_last,
    finish,
    int_tuple,
    laid_out,
    layout_mark,
    spatial_rank,
    variables,
)
from irconv_tf.keras_reader.extractors.activation_functions import FUNCTION_OPS

_PRODUCES = [*CHANNELS_LAST_CONVOLUTION_OPS, *CHANNEL_BIAS_OPS, *FUNCTION_OPS]


def _window(ctx: ExtractContext, spatial: int) -> Window:
    """strides, dilation_rate and padding: valid, same or causal (Conv1D: (k - 1) * dilation
    zeros before the sequence, none after)."""
    kernel = int_tuple(ctx, "kernel_size", spatial)
    strides = int_tuple(ctx, "strides", spatial, 1)
    dilations = int_tuple(ctx, "dilation_rate", spatial, 1)
    kind = ctx.attrs.choice("padding", ["valid", "same", "causal"], "valid")
    if kind == "causal":
        return Window.of(strides, dilations, [(k - 1) * d for k, d in zip(kernel, dilations, strict=True)],
                         (0,) * spatial)
    return Window.of(strides, dilations, auto_pad="same_upper" if kind == "same" else "valid")


def _place(ctx: ExtractContext, rank: int, last: bool = True) -> Callable[[Op, list[OutPort]], OutPort]:
    return lambda op, inputs: laid_out(ctx, op, inputs, layout_mark(ctx, rank), last=last)


def _finish(ctx: ExtractContext, y: OutPort, bias: np.ndarray | None, rank: int) -> list[OutPort]:
    return finish(ctx, y, bias, rank, rank - 1 if channels_last(ctx) else 1)


def _conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    spatial = spatial_rank(ctx)
    rank = spatial + 2
    use_bias = ctx.attrs.bool("use_bias", True)
    found = variables(ctx, 2 if use_bias else 1)
    kernel = found[0].astype(np.float32)  # [spatial..., in/g, out]
    groups = ctx.attrs.int("groups", 1)
    if groups < 1 or kernel.shape[-1] % groups:
        raise ctx.attrs.bad("groups", groups, f"does not divide the kernel's {kernel.shape[-1]} filters")
    conv = ChannelsLastConvolution(_window(ctx, spatial), kernel, FilterLayout.SPATIAL_IN_OUT, groups)
    y = channels_last_convolution(ctx, ctx.input(0), conv, _place(ctx, rank))
    return _finish(ctx, y, found[1] if use_bias else None, rank)


def _depthwise(node: Node, ctx: ExtractContext) -> list[OutPort]:
    spatial = spatial_rank(ctx)
    rank = spatial + 2
    use_bias = ctx.attrs.bool("use_bias", True)
    found = variables(ctx, 2 if use_bias else 1)
    conv = ChannelsLastConvolution(_window(ctx, spatial), found[0].astype(np.float32),
                                   FilterLayout.SPATIAL_CHANNEL_MULTIPLIER)
    y = channels_last_convolution(ctx, ctx.input(0), conv, _place(ctx, rank))
    return _finish(ctx, y, found[1] if use_bias else None, rank)


def _separable(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A depthwise convolution, then a 1x1 convolution mixing the channels."""
    spatial = spatial_rank(ctx)
    rank = spatial + 2
    use_bias = ctx.attrs.bool("use_bias", True)
    found = variables(ctx, 3 if use_bias else 2)
    depthwise_conv = ChannelsLastConvolution(_window(ctx, spatial), found[0].astype(np.float32),
                                             FilterLayout.SPATIAL_CHANNEL_MULTIPLIER)
    depthwise = channels_last_convolution(ctx, ctx.input(0), depthwise_conv, _place(ctx, rank, last=False))
    mix = ChannelsLastConvolution(Window.of((1,) * spatial), found[1].astype(np.float32),
                                  FilterLayout.SPATIAL_IN_OUT)
    y = channels_last_convolution(ctx, depthwise, mix, _place(ctx, rank))
    return _finish(ctx, y, found[2] if use_bias else None, rank)


def _transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Keras' output length (``deconv_output_length``), reached the way TensorFlow's
    conv_transpose does: total padding (in - 1) * s + k_eff - out, the smaller half first;
    a negative total is output padding at the end."""
    spatial = spatial_rank(ctx)
    rank = spatial + 2
    require_rank(ctx, 0)
    use_bias = ctx.attrs.bool("use_bias", True)
    found = variables(ctx, 2 if use_bias else 1)
    kernel_size = int_tuple(ctx, "kernel_size", spatial)
    strides = int_tuple(ctx, "strides", spatial, 1)
    dilations = int_tuple(ctx, "dilation_rate", spatial, 1)
    same = ctx.attrs.choice("padding", ["valid", "same"], "valid") == "same"
    given = None if ctx.attrs.get("output_padding") is None else int_tuple(ctx, "output_padding", spatial)
    totals = []
    for i in range(spatial):
        k = kernel_size[i] + (kernel_size[i] - 1) * (dilations[i] - 1)
        s = strides[i]
        if given is None:
            totals.append(k - s if same else min(k - s, 0))
        else:
            totals.append(2 * (k // 2 if same else 0) - given[i])
    padding = split_padding(totals, PadSplit.END)
    window = Window(strides, dilations, padding.pads_begin, padding.pads_end)
    # [spatial..., out, in] -> [in, out, spatial...]
    kernel = filters_first(ctx, found[0].astype(np.float32), FilterLayout.SPATIAL_OUT_IN, "kernel")
    y = convolution_backprop(ctx, ctx.input(0), kernel, window, padding.output_padding, place=_place(ctx, rank))
    return _finish(ctx, y, found[1] if use_bias else None, rank)


CONVOLUTIONS = aliases("keras", [f"Conv{n}D" for n in (1, 2, 3)], _conv, produces=_PRODUCES)
DEPTHWISE = aliases("keras", [f"DepthwiseConv{n}D" for n in (1, 2)], _depthwise, produces=_PRODUCES)
SEPARABLE = aliases("keras", [f"SeparableConv{n}D" for n in (1, 2)], _separable, produces=_PRODUCES)
TRANSPOSED = aliases(
    "keras", [f"Conv{n}DTranspose" for n in (1, 2, 3)], _transpose, produces=[*CONVOLUTION_BACKPROP_OPS, *_PRODUCES]
)
