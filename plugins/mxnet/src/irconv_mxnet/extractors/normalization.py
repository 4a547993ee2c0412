"""BatchNorm, InstanceNorm, LayerNorm, L2Normalization, LRN."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor

from irconv_mxnet.extractors._common import (
    bad,
    channel_shaped,
    flag,
    i64,
    integer,
    like_const,
    mx_op,
    normalize_axis,
    number,
    port_value,
    rank,
    text,
)


def batch_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inference uses the moving statistics whatever ``use_global_stats`` says;
    ``fix_gamma`` (default True) means a scale of one, whatever gamma holds."""
    from irconv_opset import Add, BatchNormInference, Multiply

    x = ctx.input(0)
    data_rank = rank(ctx, 0)
    axis = normalize_axis(ctx, integer(ctx, "axis", 1), data_rank)
    eps = number(ctx, "eps", 1e-3)
    gamma, beta, mean, var = (ctx.input(i) for i in range(1, 5))
    if flag(ctx, "fix_gamma", True):
        channels = _channels(ctx, axis)
        gamma = like_const(ctx, np.ones(channels), x, "gamma_fixed")
    if axis == 1 and data_rank >= 2:
        out = ctx.op(BatchNormInference(epsilon=eps), x, gamma, beta, mean, var, suffix="bn")
    else:
        values = [port_value(p) for p in (gamma, beta, mean, var)]
        if any(v is None for v in values):
            raise bad(ctx, "axis", axis, "BatchNorm on an axis other than 1 needs constant statistics")
        g, b, m, v = (np.asarray(a, np.float64) for a in values)
        scale = g / np.sqrt(v + eps)
        shift = b - m * scale
        dtype = np.dtype(np.float32)
        scale_port = channel_shaped(ctx, ctx.const(scale.astype(dtype)), axis, data_rank, "scale")
        shift_port = channel_shaped(ctx, ctx.const(shift.astype(dtype)), axis, data_rank, "shift")
        out = ctx.op(Add(), ctx.op(Multiply(), x, scale_port, suffix="scale"), shift_port, suffix="bn")
    return [out, mean, var]


def _channels(ctx: ExtractContext, axis: int) -> int:
    for i in range(1, 5):
        value = port_value(ctx.input(i))
        if value is not None:
            return int(np.asarray(value).size)
    shape = ctx.input_shape(0)
    channels = None if shape is None else shape[axis]
    if channels is None:
        raise bad(ctx, "fix_gamma", True, "the channel count must be known")
    return int(channels)


def _mvn(ctx: ExtractContext, x: OutPort, axes: list[int], eps: float) -> OutPort:
    from irconv_opset import MVN

    return ctx.op(MVN(normalize_variance=True, eps=eps, eps_mode="inside_sqrt"), x, i64(ctx, axes, "axes"),
                  suffix="mvn")


def instance_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(x - mean) / sqrt(var + eps) over the spatial axes, then gamma/beta per channel."""
    from irconv_opset import Add, Multiply

    x = ctx.input(0)
    data_rank = rank(ctx, 0)
    out = _mvn(ctx, x, list(range(2, data_rank)), number(ctx, "eps", 1e-3))
    out = ctx.op(Multiply(), out, channel_shaped(ctx, ctx.input(1), 1, data_rank, "gamma"), suffix="gamma")
    return [ctx.op(Add(), out, channel_shaped(ctx, ctx.input(2), 1, data_rank, "beta"), suffix="beta")]


def layer_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Normalised over one ``axis`` (default -1), then gamma/beta along it."""
    from irconv_opset import Add, Multiply

    x = ctx.input(0)
    data_rank = rank(ctx, 0)
    axis = normalize_axis(ctx, integer(ctx, "axis", -1), data_rank)
    out = _mvn(ctx, x, [axis], number(ctx, "eps", 1e-5))
    out = ctx.op(Multiply(), out, channel_shaped(ctx, ctx.input(1), axis, data_rank, "gamma"), suffix="gamma")
    return [ctx.op(Add(), out, channel_shaped(ctx, ctx.input(2), axis, data_rank, "beta"), suffix="beta")]


def l2_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x / sqrt(sum(x^2) + eps): over all but axis 0 (instance), axis 1 (channel) or the
    spatial axes (spatial)."""
    from irconv_opset import NormalizeL2

    data_rank = rank(ctx, 0)
    mode = text(ctx, "mode", "instance")
    axes = {"instance": list(range(1, data_rank)), "channel": [1], "spatial": list(range(2, data_rank))}.get(mode)
    if axes is None:
        raise bad(ctx, "mode", mode, "expected instance, channel or spatial")
    op = NormalizeL2(eps=number(ctx, "eps", 1e-10), eps_mode="add")
    return [ctx.op(op, ctx.input(0), i64(ctx, axes, "axes"))]


def lrn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MXNet LRN: x / (knorm + alpha/nsize * sum(x^2))^beta across channels."""
    from irconv_opset import LRN

    size = integer(ctx, "nsize")
    op = LRN(alpha=number(ctx, "alpha", 1e-4), beta=number(ctx, "beta", 0.75), bias=number(ctx, "knorm", 2.0),
             size=size)
    return [ctx.op(op, ctx.input(0), i64(ctx, [1], "axes"))]


def extractors() -> list[Extractor]:
    return [
        *mx_op(("BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm"), batch_norm, "BatchNormInference"),
        *mx_op("InstanceNorm", instance_norm, "MVN, Multiply, Add"),
        *mx_op("LayerNorm", layer_norm, "MVN, Multiply, Add"),
        *mx_op("L2Normalization", l2_normalization, "NormalizeL2"),
        *mx_op("LRN", lrn, "LRN"),
    ]
