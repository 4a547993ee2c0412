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
from irconv.frontend import f32, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset import Add, Convolution, ConvolutionBackpropData, GroupConvolution

from irconv_tf.keras_reader.extractors._base import (
    channels_last,
    finish,
    int_tuple,
    keras,
    laid_out,
    layout_mark,
    variables,
)
from irconv_tf.keras_reader.extractors.activation_functions import FUNCTION_OPS

_PRODUCES = [Convolution, GroupConvolution, Add, *FUNCTION_OPS]


def _padding(ctx: ExtractContext, kernel: tuple[int, ...], dilations: tuple[int, ...]) -> dict[str, object]:
    kind = ctx.attrs.choice("padding", ["valid", "same", "causal"], "valid")
    zeros = (0,) * len(kernel)
    if kind == "causal":  # Conv1D: (k - 1) * dilation zeros before the sequence, none after
        begin = tuple((k - 1) * d for k, d in zip(kernel, dilations, strict=True))
        return {"auto_pad": "explicit", "pads_begin": begin, "pads_end": zeros}
    return {"auto_pad": "same_upper" if kind == "same" else "valid", "pads_begin": zeros, "pads_end": zeros}


def _geometry(ctx: ExtractContext, spatial: int) -> dict[str, object]:
    kernel = int_tuple(ctx, "kernel_size", spatial)
    dilations = int_tuple(ctx, "dilation_rate", spatial, 1)
    return {
        "strides": int_tuple(ctx, "strides", spatial, 1),
        "dilations": dilations,
        **_padding(ctx, kernel, dilations),
    }


def _conv(spatial: int) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        rank = spatial + 2
        use_bias = ctx.attrs.bool("use_bias", True)
        found = variables(ctx, 2 if use_bias else 1)
        kernel = np.moveaxis(found[0].astype(np.float32), [-1, -2], [0, 1])  # [out, in/g, spatial...]
        groups = ctx.attrs.int("groups", 1)
        op: Op
        if groups == 1:
            op = Convolution(**_geometry(ctx, spatial))
        else:
            out = kernel.shape[0]
            if groups < 1 or out % groups:
                raise ctx.attrs.bad("groups", groups, f"does not divide the kernel's {out} filters")
            kernel = kernel.reshape(groups, out // groups, *kernel.shape[1:])
            op = GroupConvolution(**_geometry(ctx, spatial))
        y = laid_out(ctx, op, [ctx.input(0), f32(ctx, np.ascontiguousarray(kernel), "kernel")], layout_mark(ctx, rank))
        return finish(ctx, y, found[1] if use_bias else None, rank, rank - 1 if channels_last(ctx) else 1)

    return extract


def _depthwise_op(ctx: ExtractContext, depthwise: np.ndarray, spatial: int) -> tuple[Op, np.ndarray]:
    """[spatial..., C, M] -> GroupConvolution's [C, M, 1, spatial...]."""
    weights = np.moveaxis(depthwise.astype(np.float32), [-2, -1], [0, 1])[:, :, None]
    return GroupConvolution(**_geometry(ctx, spatial)), np.ascontiguousarray(weights)


def _depthwise(spatial: int) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        rank = spatial + 2
        use_bias = ctx.attrs.bool("use_bias", True)
        found = variables(ctx, 2 if use_bias else 1)
        op, weights = _depthwise_op(ctx, found[0], spatial)
        y = laid_out(ctx, op, [ctx.input(0), f32(ctx, weights, "kernel")], layout_mark(ctx, rank))
        return finish(ctx, y, found[1] if use_bias else None, rank, rank - 1 if channels_last(ctx) else 1)

    return extract


def _separable(spatial: int) -> Callable[[Node, ExtractContext], list[OutPort]]:
    """A depthwise convolution, then a 1x1 convolution mixing the channels."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        rank = spatial + 2
        use_bias = ctx.attrs.bool("use_bias", True)
        found = variables(ctx, 3 if use_bias else 2)
        op, weights = _depthwise_op(ctx, found[0], spatial)
        depthwise = laid_out(
            ctx, op, [ctx.input(0), f32(ctx, weights, "depthwise_kernel")], layout_mark(ctx, rank), last=False
        )
        pointwise = np.ascontiguousarray(np.moveaxis(found[1].astype(np.float32), [-1, -2], [0, 1]))
        ones, zeros = (1,) * spatial, (0,) * spatial
        mix = Convolution(strides=ones, dilations=ones, pads_begin=zeros, pads_end=zeros, auto_pad="explicit")
        y = laid_out(ctx, mix, [depthwise, f32(ctx, pointwise, "pointwise_kernel")], layout_mark(ctx, rank))
        return finish(ctx, y, found[2] if use_bias else None, rank, rank - 1 if channels_last(ctx) else 1)

    return extract


def _transpose(spatial: int) -> Callable[[Node, ExtractContext], list[OutPort]]:
    """Keras' output length (``deconv_output_length``), reached the way TensorFlow's
    conv_transpose does: total padding (in - 1) * s + k_eff - out, the smaller half first;
    a negative total is output padding at the end."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        rank = spatial + 2
        require_rank(ctx, 0)
        use_bias = ctx.attrs.bool("use_bias", True)
        found = variables(ctx, 2 if use_bias else 1)
        kernel_size = int_tuple(ctx, "kernel_size", spatial)
        strides = int_tuple(ctx, "strides", spatial, 1)
        dilations = int_tuple(ctx, "dilation_rate", spatial, 1)
        same = ctx.attrs.choice("padding", ["valid", "same"], "valid") == "same"
        given = None if ctx.attrs.get("output_padding") is None else int_tuple(ctx, "output_padding", spatial)
        begin, end, extra = [], [], []
        for i in range(spatial):
            k = kernel_size[i] + (kernel_size[i] - 1) * (dilations[i] - 1)
            s = strides[i]
            total = (k - s if same else min(k - s, 0)) if given is None else 2 * (k // 2 if same else 0) - given[i]
            begin.append(max(total, 0) // 2)
            end.append(max(total, 0) - max(total, 0) // 2)
            extra.append(max(-total, 0))
        # [spatial..., out, in] -> [in, out, spatial...]
        kernel = np.ascontiguousarray(np.moveaxis(found[0].astype(np.float32), [-1, -2], [0, 1]))
        op = ConvolutionBackpropData(
            strides=strides,
            dilations=dilations,
            pads_begin=tuple(begin),
            pads_end=tuple(end),
            auto_pad="explicit",
            output_padding=tuple(extra),
        )
        y = laid_out(ctx, op, [ctx.input(0), f32(ctx, kernel, "kernel")], layout_mark(ctx, rank))
        return finish(ctx, y, found[1] if use_bias else None, rank, rank - 1 if channels_last(ctx) else 1)

    return extract


CONVOLUTIONS = [keras(f"Conv{n}D", _conv(n), produces=_PRODUCES) for n in (1, 2, 3)]
DEPTHWISE = [keras(f"DepthwiseConv{n}D", _depthwise(n), produces=_PRODUCES) for n in (1, 2)]
SEPARABLE = [keras(f"SeparableConv{n}D", _separable(n), produces=_PRODUCES) for n in (1, 2)]
TRANSPOSED = [
    keras(f"Conv{n}DTranspose", _transpose(n), produces=[ConvolutionBackpropData, *_PRODUCES]) for n in (1, 2, 3)
]
