"""Convolutions as OpenVINO builds them: the window (strides, dilations, padding), grouped
weights, the per-channel bias, the padding of a transposed convolution that gives a requested
output size, and one channels-last builder for the front ends whose filters are laid out
spatial-first (TensorFlow, the Keras reader, TFLite).

Every front end reads its own attributes into a :class:`Window` and calls these builders, so a
fix here reaches them all. Shapes follow the opset specs: Convolution weights
``[O, I, k...]``, GroupConvolution ``[g, O/g, I/g, k...]``, ConvolutionBackpropData
``[I, O, k...]``, GroupConvolutionBackpropData ``[g, I/g, O/g, k...]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, TypeVar

import numpy as np
from irconv.errors import LoweringError, quoted
from irconv.frontend import i64

from irconv_opset import (
    Add,
    Concat,
    Convolution,
    ConvolutionBackpropData,
    GroupConvolution,
    GroupConvolutionBackpropData,
    Reshape,
    ShapeOf,
    Slice,
    Transpose,
    Unsqueeze,
)
from irconv_opset.build import shape_of

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import OutPort
    from irconv.ops import Op

AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")


@dataclass(frozen=True)
class Window:
    """A convolution's or pool's sliding window over the spatial axes: ``auto_pad`` is one of
    :data:`AUTO_PADS`; the explicit pads are zeros unless it is ``explicit``."""

    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    auto_pad: str = "explicit"

    def __post_init__(self) -> None:
        if self.auto_pad not in AUTO_PADS:
            raise LoweringError(f"auto_pad {quoted(self.auto_pad)} is not one of {AUTO_PADS}")
        sizes = {len(self.strides), len(self.dilations), len(self.pads_begin), len(self.pads_end)}
        if len(sizes) != 1:
            raise LoweringError(f"a window's strides, dilations and pads differ in length: {self}")

    @classmethod
    def of(
        cls,
        strides: Sequence[int],
        dilations: Sequence[int] | None = None,
        pads_begin: Sequence[int] | None = None,
        pads_end: Sequence[int] | None = None,
        auto_pad: str = "explicit",
    ) -> Window:
        """A window from lists: dilations default to ones, ``pads_end`` to ``pads_begin``
        (symmetric padding), pads to zeros; pads are zeroed unless ``auto_pad`` is explicit."""
        spatial = len(strides)
        ones, zeros = (1,) * spatial, (0,) * spatial
        begin = zeros if pads_begin is None or auto_pad != "explicit" else tuple(int(p) for p in pads_begin)
        end = begin if pads_end is None else tuple(int(p) for p in pads_end)
        if auto_pad != "explicit":
            end = zeros
        return cls(tuple(int(s) for s in strides), ones if dilations is None else tuple(int(d) for d in dilations),
                   begin, end, auto_pad)

    @property
    def spatial(self) -> int:
        return len(self.strides)

    def attributes(self) -> dict[str, object]:
        """The keyword arguments every convolution op of the opset takes for its window."""
        return {"strides": self.strides, "dilations": self.dilations, "pads_begin": self.pads_begin,
                "pads_end": self.pads_end, "auto_pad": self.auto_pad}


Place = Callable[["Op", "list[OutPort]"], "OutPort"]
"""Adds an op to the graph and returns its output 0; channels-last front ends pass one that
marks the node's layout for the layout plugin."""


def _placer(ctx: ExtractContext, suffix: str) -> Place:
    return lambda op, inputs: ctx.op(op, *inputs, suffix=suffix)


# ----------------------------------------------------------------------------- weights


def grouped_array(weights: np.ndarray, groups: int) -> np.ndarray:
    """Constant weights ``[A, B, k...]`` as ``[g, A/g, B, k...]``: a convolution's
    ``[O, I/g, k...]`` becomes ``[g, O/g, I/g, k...]`` and a transposed convolution's
    ``[I, O/g, k...]`` becomes ``[g, I/g, O/g, k...]`` (the group split is the leading axis
    either way)."""
    if groups < 1 or weights.shape[0] % groups:
        raise LoweringError(f"{groups} groups do not divide the weights' leading axis of {weights.shape[0]}")
    return weights.reshape((groups, weights.shape[0] // groups) + weights.shape[1:])


def grouped_weights(ctx: ExtractContext, weights: OutPort, groups: int) -> OutPort:
    """:func:`grouped_array` for a port: folded when constant, a Reshape to ``[g, -1, tail]``
    otherwise (the tail from the static shape, else from ShapeOf)."""
    value = weights.constant(shape_derived=False)
    if value is not None:
        return ctx.const(grouped_array(np.asarray(value), groups), suffix="weights")
    shape = weights.data.shape
    tail_dims = [d for d in (shape or ())[1:] if d is not None]
    if shape is not None and len(tail_dims) == len(shape) - 1:
        target = i64(ctx, [groups, -1, *tail_dims], "grouped_shape")
    else:
        full = shape_of(ctx, weights, "weights_shape")
        tail = ctx.op(Slice(), full, i64(ctx, [1]), i64(ctx, [np.iinfo(np.int64).max]), i64(ctx, [1]),
                      i64(ctx, [0]), suffix="tail")
        target = ctx.op(Concat(axis=0), i64(ctx, [groups, -1]), tail, suffix="grouped_shape")
    return ctx.op(Reshape(special_zero=False), weights, target, suffix="grouped")


GROUPED_WEIGHTS_OPS = (Reshape, ShapeOf, Slice, Concat)


# ----------------------------------------------------------------------------- bias


def channel_bias(ctx: ExtractContext, port: OutPort, bias: OutPort, rank: int | None = None,
                 channel_axis: int = 1) -> OutPort:
    """``port + bias`` with a ``[C]`` bias broadcast along ``channel_axis`` of a rank-``rank``
    result: as is on the last axis (``-1``: no rank needed), else folded to ``[C, 1, ...]``
    when constant, an Unsqueeze otherwise."""
    if channel_axis != -1 and channel_axis != (rank or 0) - 1:
        if rank is None:
            raise ValueError("a bias on an axis other than the last needs the result's rank")
        trailing = rank - 1 - channel_axis
        value = bias.constant(shape_derived=False)
        if value is not None:
            bias = ctx.const(np.asarray(value).reshape((-1,) + (1,) * trailing), suffix="bias")
        else:
            bias = ctx.op(Unsqueeze(), bias, i64(ctx, list(range(1, trailing + 1))), suffix="bias")
    return ctx.op(Add(), port, bias, suffix="add_bias")


CHANNEL_BIAS_OPS = (Add, Unsqueeze)


# ----------------------------------------------------------------------------- forward


def convolution(
    ctx: ExtractContext,
    data: OutPort,
    weights: OutPort,
    window: Window,
    groups: int = 1,
    *,
    suffix: str = "conv",
    place: Place | None = None,
) -> OutPort:
    """Convolution of ``data`` with ``[O, I/g, k...]`` weights; GroupConvolution (weights
    regrouped) when ``groups`` > 1."""
    add = place or _placer(ctx, suffix)
    if groups == 1:
        return add(Convolution(**window.attributes()), [data, weights])
    return add(GroupConvolution(**window.attributes()), [data, grouped_weights(ctx, weights, groups)])


CONVOLUTION_OPS = (Convolution, GroupConvolution, *GROUPED_WEIGHTS_OPS)


# ----------------------------------------------------------------------------- transposed


class PadSplit(Enum):
    """Where a transposed convolution puts the odd cell of its total padding."""

    END = "end"  # the smaller half first (ONNX SAME_UPPER, TensorFlow's SAME)
    BEGIN = "begin"  # the larger half first (ONNX NOTSET / SAME_LOWER)
    SYMMETRIC = "symmetric"  # equal pads, rounded up; the excess given back as output padding (MXNet)


@dataclass(frozen=True)
class TransposedPadding:
    """Explicit pads and output padding of a transposed convolution."""

    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    output_padding: tuple[int, ...]


def split_padding(totals: Sequence[int], split: PadSplit, output_padding: Sequence[int] | None = None
                  ) -> TransposedPadding:
    """Per axis, a total padding (cells cropped from the full transposed result) as pads;
    a negative total asks for more cells than the kernel covers and becomes output padding."""
    extra = list(output_padding or [0] * len(totals))
    begins, ends = [], []
    for i, total in enumerate(totals):
        if total < 0:
            extra[i] -= total
            total = 0
        if split is PadSplit.SYMMETRIC:
            half = (total + 1) // 2
            begins.append(half)
            ends.append(half)
            extra[i] += total % 2
        elif split is PadSplit.END:
            begins.append(total // 2)
            ends.append(total - total // 2)
        else:
            begins.append(total - total // 2)
            ends.append(total // 2)
    return TransposedPadding(tuple(begins), tuple(ends), tuple(extra))


def full_transposed_size(size: int, kernel: int, stride: int, dilation: int) -> int:
    """The output of a transposed convolution without padding: ``(in - 1) * s + k_eff``."""
    return (size - 1) * stride + (kernel - 1) * dilation + 1


def padding_for_output_size(
    in_sizes: Sequence[int],
    kernels: Sequence[int],
    window: Window,
    out_sizes: Sequence[int],
    split: PadSplit,
    output_padding: Sequence[int] | None = None,
) -> TransposedPadding:
    """The pads that make a transposed convolution of ``in_sizes`` produce ``out_sizes``."""
    extra = list(output_padding or [0] * len(in_sizes))
    totals = [full_transposed_size(n, k, s, d) + e - o for n, k, s, d, e, o in
              zip(in_sizes, kernels, window.strides, window.dilations, extra, out_sizes, strict=True)]
    return split_padding(totals, split, extra)


def convolution_backprop(
    ctx: ExtractContext,
    data: OutPort,
    weights: OutPort,
    window: Window,
    output_padding: Sequence[int] | None = None,
    groups: int = 1,
    *,
    output_shape: OutPort | None = None,
    suffix: str = "deconv",
    place: Place | None = None,
) -> OutPort:
    """ConvolutionBackpropData of ``data`` with ``[I, O/g, k...]`` weights (grouped when
    ``groups`` > 1); ``output_shape`` the optional spatial output size input."""
    add = place or _placer(ctx, suffix)
    padding = tuple(output_padding or (0,) * window.spatial)
    inputs = [data, weights if groups == 1 else grouped_weights(ctx, weights, groups)]
    if output_shape is not None:
        inputs.append(output_shape)
    cls = ConvolutionBackpropData if groups == 1 else GroupConvolutionBackpropData
    return add(cls(**window.attributes(), output_padding=padding), inputs)


CONVOLUTION_BACKPROP_OPS = (ConvolutionBackpropData, GroupConvolutionBackpropData, *GROUPED_WEIGHTS_OPS)


# ----------------------------------------------------------------------------- channels last


class FilterLayout(Enum):
    """How a channels-last framework stores its filters (``k...`` the spatial axes)."""

    SPATIAL_IN_OUT = "spatial_in_out"  # TensorFlow, Keras: [k..., I/g, O]
    OUT_SPATIAL_IN = "out_spatial_in"  # TFLite CONV_2D: [O, k..., I/g]
    SPATIAL_CHANNEL_MULTIPLIER = "spatial_channel_multiplier"  # depthwise: [k..., C, M]
    SPATIAL_OUT_IN = "spatial_out_in"  # TensorFlow/Keras transposed: [k..., O, I]
    OUT_SPATIAL_IN_TRANSPOSED = "out_spatial_in_transposed"  # TFLite TRANSPOSE_CONV: [O, k..., I]


def _order(layout: FilterLayout, rank: int) -> list[int]:
    """The permutation of a filter of ``rank`` axes into [O, I, k...] (forward) or [I, O, k...]
    (transposed); depthwise into [C, M, k...]."""
    spatial = list(range(rank - 2))
    if layout is FilterLayout.OUT_SPATIAL_IN:
        return [0, rank - 1, *range(1, rank - 1)]
    if layout is FilterLayout.OUT_SPATIAL_IN_TRANSPOSED:
        return [rank - 1, 0, *range(1, rank - 1)]
    if layout is FilterLayout.SPATIAL_CHANNEL_MULTIPLIER:
        return [rank - 2, rank - 1, *spatial]
    return [rank - 1, rank - 2, *spatial]  # SPATIAL_IN_OUT -> [O, I, k], SPATIAL_OUT_IN -> [I, O, k]


def filters_first(ctx: ExtractContext, filters: OutPort | np.ndarray, layout: FilterLayout,
                  suffix: str = "filters") -> OutPort:
    """Channels-last filters in the opset's channels-first order: rearranged in numpy when
    given as an array, a Transpose otherwise."""
    if isinstance(filters, np.ndarray):
        return ctx.const(np.ascontiguousarray(filters.transpose(_order(layout, filters.ndim))), suffix=suffix)
    shape = filters.data.shape
    if shape is None:
        raise LoweringError("channels-last filters need a known rank")
    return ctx.op(Transpose(), filters, i64(ctx, _order(layout, len(shape)), "perm"), suffix=suffix)


def depthwise_filters(ctx: ExtractContext, filters: np.ndarray, suffix: str = "filters") -> OutPort:
    """Depthwise ``[k..., C, M]`` as GroupConvolution's ``[C, M, 1, k...]``."""
    moved = filters.transpose(_order(FilterLayout.SPATIAL_CHANNEL_MULTIPLIER, filters.ndim))
    return ctx.const(np.ascontiguousarray(moved[:, :, None]), suffix=suffix)


@dataclass(frozen=True)
class ChannelsLastConvolution:
    """A channels-last framework's convolution, read from its own attributes: the window, the
    filters with their layout, the group count (``depthwise`` for [k..., C, M] filters)."""

    window: Window
    filters: OutPort | np.ndarray
    layout: FilterLayout
    groups: int = 1

    @property
    def depthwise(self) -> bool:
        return self.layout is FilterLayout.SPATIAL_CHANNEL_MULTIPLIER


Placed = TypeVar("Placed")


def channels_last_convolution(ctx: ExtractContext, data: OutPort, conv: ChannelsLastConvolution,
                              place: Callable[[Op, list[OutPort]], Placed]) -> Placed:
    """The convolution of TensorFlow's Conv2D/Conv3D/DepthwiseConv2dNative, Keras' Conv and
    DepthwiseConv layers and TFLite's CONV_2D/CONV_3D/DEPTHWISE_CONV_2D: the filters
    rearranged into the opset's order (grouped when ``groups`` > 1 or depthwise) and the op
    added by ``place``, which marks the node channels-last for the layout plugin."""
    attributes = conv.window.attributes()
    if conv.depthwise:
        if not isinstance(conv.filters, np.ndarray):
            raise LoweringError("depthwise filters must be constant")
        return place(GroupConvolution(**attributes), [data, depthwise_filters(ctx, conv.filters)])
    if conv.groups == 1:
        return place(Convolution(**attributes), [data, filters_first(ctx, conv.filters, conv.layout)])
    if not isinstance(conv.filters, np.ndarray):
        raise LoweringError("grouped channels-last filters must be constant")
    first = conv.filters.transpose(_order(conv.layout, conv.filters.ndim))
    grouped = ctx.const(np.ascontiguousarray(grouped_array(first, conv.groups)), suffix="filters")
    return place(GroupConvolution(**attributes), [data, grouped])


CHANNELS_LAST_CONVOLUTION_OPS = (Convolution, GroupConvolution, Transpose)
