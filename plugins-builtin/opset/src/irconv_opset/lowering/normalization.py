"""Normalisations the front ends share once they have read their own attributes:

- mean-variance normalisation over some axes followed by a per-channel (or per-feature)
  scale and shift: instance norm, layer norm, batch norm from the batch's own statistics;
- batch norm at inference with known statistics, folded into one multiply and one add;
- local response normalisation across the channels of channels-last data (TensorFlow's
  and TFLite's LRN: ``x / (bias + alpha * sum of 2r+1 squares) ** beta``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.frontend import i64
from irconv.types import ElementType

from irconv_opset import LRN, MVN, Add, AvgPool, Multiply, Power, Reshape, Squeeze, Unsqueeze
from irconv_opset.build import along_axis
from irconv_opset.lowering.layout import LayoutMark, laid_out

if TYPE_CHECKING:
    from irconv import ExtractContext, OutPort

#: What :func:`normalized` builds (Reshape: a computed per-channel parameter laid along its axis).
NORMALIZED_OPS = (MVN, Multiply, Add, Reshape)
#: What :func:`folded_batch_norm` builds.
FOLDED_BATCH_NORM_OPS = (Multiply, Add)
#: What :func:`channels_last_lrn` builds (the decomposed form included).
CHANNELS_LAST_LRN_OPS = (LRN, Multiply, Unsqueeze, AvgPool, Squeeze, Add, Power)


@dataclass(frozen=True)
class Affine:
    """The scale and shift applied after normalising (either may be absent). ``axis``: the
    axis of the input a 1-D parameter runs along (laid along it for a rank-``rank`` input);
    None when the parameters already broadcast against the input (a layer norm's
    parameters covering the trailing axes)."""

    scale: OutPort | None = None
    shift: OutPort | None = None
    axis: int | None = None
    rank: int | None = None


@dataclass(frozen=True)
class BatchStatistics:
    """Batch norm's per-channel parameters, as known values."""

    gamma: np.ndarray
    beta: np.ndarray
    mean: np.ndarray
    variance: np.ndarray


def normalized(
    ctx: ExtractContext, x: OutPort, axes: Sequence[int] | OutPort, eps: float, affine: Affine | None = None
) -> OutPort:
    """(x - mean) / sqrt(variance + eps) over ``axes`` (a list, or a computed i64 tensor when
    the rank is unknown) by MVN, then ``* scale + shift``."""
    op = MVN(normalize_variance=True, eps=eps, eps_mode="inside_sqrt")
    y = ctx.op(op, x, i64(ctx, list(axes), "axes") if isinstance(axes, Sequence) else axes, suffix="mvn")
    if affine is None:
        return y
    for parameter, make, name in ((affine.scale, Multiply, "scale"), (affine.shift, Add, "shift")):
        if parameter is None:
            continue
        if affine.axis is not None:
            assert affine.rank is not None, "a parameter laid along an axis needs the input's rank"
            parameter = along_axis(ctx, parameter, affine.axis, affine.rank, f"{name}_along")
        y = ctx.op(make(), y, parameter, suffix=name)
    return y


def folded_batch_norm(
    ctx: ExtractContext, x: OutPort, stats: BatchStatistics, eps: float, axes: Sequence[int], rank: int
) -> OutPort:
    """Batch norm with known statistics as ``x * s + (beta - mean * s)``, s = gamma /
    sqrt(variance + eps), computed in float64 and stored as f32. The parameters cover the
    input's ``axes`` (one channel axis, or several for a Keras layer over several axes); a
    vector over the last axis stays a vector."""
    gamma, beta, mean, variance = (np.asarray(v, np.float64) for v in (stats.gamma, stats.beta, stats.mean,
                                                                        stats.variance))
    scale = gamma / np.sqrt(variance + eps)
    shift = beta - mean * scale
    scaled = ctx.op(Multiply(), x, ctx.const(laid_along(scale, axes, rank), suffix="scale_value"), suffix="scale")
    return ctx.op(Add(), scaled, ctx.const(laid_along(shift, axes, rank), suffix="shift_value"), suffix="shift")


def laid_along(values: np.ndarray, axes: Sequence[int], rank: int) -> np.ndarray:
    """Known per-axis parameters as f32 shaped to broadcast against a rank-``rank`` input at
    ``axes`` (a vector over the last axis stays a vector)."""
    values = np.asarray(values, np.float32)
    if values.ndim == 0 or list(axes) == list(range(rank - values.ndim, rank)):
        return values
    shape = [1] * rank
    for axis, size in zip(axes, values.shape, strict=False):
        shape[axis] = size
    return values.reshape(shape)


def channels_last_lrn(ctx: ExtractContext, x: OutPort, radius: int, alpha: float, beta: float, bias: float) -> OutPort:
    """LRN of NHWC data over windows of 2r+1 channels. OpenVINO's LRN divides ``alpha`` by the
    window size, so it is multiplied by it; the op computes on the NCHW form (marked for the
    layout plugin). The CPU plugin computes the transposed form with a bias of 1 whatever
    the attribute says, so a positive bias b is taken out: x / (b + a s) ** beta =
    b ** -beta * x / (1 + (a / b) s) ** beta. It has no LRN for an unknown number of
    channels: that, and a bias <= 0, take the decomposed form."""
    size = 2 * radius + 1
    shape = x.data.shape
    dtype = _dtype(x)
    if bias <= 0.0 or shape is None or len(shape) != 4 or shape[-1] is None:
        return _lrn_decomposed(ctx, x, radius, alpha, beta, bias, dtype)
    op = LRN(alpha=alpha / bias * size, beta=beta, bias=1.0, size=size)
    normalized_ = laid_out(ctx, op, [x, i64(ctx, [1], "axes")], LayoutMark.NHWC).out_port(0)
    if bias == 1.0:
        return normalized_
    scale = ctx.const(np.asarray(bias**-beta, dtype), suffix="bias_scale")
    return ctx.op(Multiply(), normalized_, scale, suffix="scaled")


def _lrn_decomposed(
    ctx: ExtractContext, x: OutPort, radius: int, alpha: float, beta: float, bias: float, dtype: np.dtype
) -> OutPort:
    """LRN as x * (bias + alpha * window_sum(x * x)) ** -beta. The window sums are averages
    over zero-padded windows of 2r+1 channels (the NHWC squares seen as a rank-5 NCDHW tensor
    [N, H, W, 1, C], pooled along its last axis) times the window size."""
    size = 2 * radius + 1
    squares = ctx.op(Multiply(), x, x, suffix="squares")
    as_5d = ctx.op(Unsqueeze(), squares, i64(ctx, [3], "axis"), suffix="squares_5d")
    pool = AvgPool(
        strides=(1, 1, 1),
        kernel=(1, 1, size),
        pads_begin=(0, 0, radius),
        pads_end=(0, 0, radius),
        exclude_pad=False,
        auto_pad="explicit",
        rounding_type="floor",
    )
    means = ctx.op(Squeeze(), ctx.op(pool, as_5d, suffix="window_means"), i64(ctx, [3], "axis"))
    scaled = ctx.op(Multiply(), means, ctx.const(np.asarray(alpha * size, dtype), suffix="alpha"), suffix="scaled")
    base = ctx.op(Add(), scaled, ctx.const(np.asarray(bias, dtype), suffix="bias"), suffix="base")
    factor = ctx.op(Power(), base, ctx.const(np.asarray(-beta, dtype), suffix="minus_beta"), suffix="factor")
    return ctx.op(Multiply(), x, factor, suffix="normalized")


def _dtype(x: OutPort) -> np.dtype:
    """The NumPy type of ``x``'s values (f32 while unknown), for the constants computed with it."""
    found = x.data.element_type
    return np.dtype(np.float32) if found is ElementType.dynamic else np.dtype(found.numpy)
