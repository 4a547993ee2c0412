"""BatchNorm, InstanceNorm, LayerNorm, L2Normalization, LRN."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, const_like, extractor, f32, i64, normalize_axis, per_axis, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import LRN, MVN, Add, BatchNormInference, Multiply, NormalizeL2, Reshape
from irconv_opset.build import along_axis


def batch_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inference uses the moving statistics whatever ``use_global_stats`` says;
    ``fix_gamma`` (default True) means a scale of one, whatever gamma holds."""
    x = ctx.input(0)
    data_rank = require_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 1), data_rank)
    eps = ctx.attrs.float("eps", 1e-3)
    gamma, beta, mean, var = (ctx.input(i) for i in range(1, 5))
    if ctx.attrs.bool("fix_gamma", True):
        channels = _channels(ctx, axis)
        gamma = const_like(ctx, np.ones(channels), x, "gamma_fixed")
    if axis == 1 and data_rank >= 2:
        out = ctx.op(BatchNormInference(epsilon=eps), x, gamma, beta, mean, var, suffix="bn")
    else:
        values = [p.constant(shape_derived=True) for p in (gamma, beta, mean, var)]
        if any(v is None for v in values):
            raise ctx.attrs.bad("axis", axis, "BatchNorm on an axis other than 1 needs constant statistics")
        g, b, m, v = (np.asarray(a, np.float64) for a in values)
        scale = g / np.sqrt(v + eps)
        shift = b - m * scale
        scale_port = f32(ctx, per_axis(scale, axis, data_rank), "scale_value")
        shift_port = f32(ctx, per_axis(shift, axis, data_rank), "shift_value")
        out = ctx.op(Add(), ctx.op(Multiply(), x, scale_port, suffix="scale"), shift_port, suffix="bn")
    return [out, mean, var]


def _channels(ctx: ExtractContext, axis: int) -> int:
    for i in range(1, 5):
        value = ctx.input_value(i)
        if value is not None:
            return int(np.asarray(value).size)
    shape = ctx.input_shape(0)
    channels = None if shape is None else shape[axis]
    if channels is None:
        raise ConversionError(f"{ctx.where()}: fix_gamma needs the channel count, from the statistics or the data shape")
    return int(channels)


def _mvn(ctx: ExtractContext, x: OutPort, axes: list[int], eps: float) -> OutPort:
    return ctx.op(MVN(normalize_variance=True, eps=eps, eps_mode="inside_sqrt"), x, i64(ctx, axes, "axes"),
                  suffix="mvn")


def instance_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(x - mean) / sqrt(var + eps) over the spatial axes, then gamma/beta per channel."""
    x = ctx.input(0)
    data_rank = require_rank(ctx)
    out = _mvn(ctx, x, list(range(2, data_rank)), ctx.attrs.float("eps", 1e-3))
    out = ctx.op(Multiply(), out, along_axis(ctx, ctx.input(1), 1, data_rank, "gamma"), suffix="gamma")
    return [ctx.op(Add(), out, along_axis(ctx, ctx.input(2), 1, data_rank, "beta"), suffix="beta")]


def layer_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Normalised over one ``axis`` (default -1), then gamma/beta along it."""
    x = ctx.input(0)
    data_rank = require_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), data_rank)
    out = _mvn(ctx, x, [axis], ctx.attrs.float("eps", 1e-5))
    out = ctx.op(Multiply(), out, along_axis(ctx, ctx.input(1), axis, data_rank, "gamma"), suffix="gamma")
    return [ctx.op(Add(), out, along_axis(ctx, ctx.input(2), axis, data_rank, "beta"), suffix="beta")]


def l2_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x / sqrt(sum(x^2) + eps): over all but axis 0 (instance), axis 1 (channel) or the
    spatial axes (spatial)."""
    data_rank = require_rank(ctx)
    mode = ctx.attrs.choice("mode", ["instance", "channel", "spatial"], "instance")
    axes = {"instance": list(range(1, data_rank)), "channel": [1], "spatial": list(range(2, data_rank))}[mode]
    op = NormalizeL2(eps=ctx.attrs.float("eps", 1e-10), eps_mode="add")
    return [ctx.op(op, ctx.input(0), i64(ctx, axes, "axes"))]


def lrn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MXNet LRN: x / (knorm + alpha/nsize * sum(x^2))^beta across channels."""
    size = ctx.attrs.int("nsize")
    op = LRN(alpha=ctx.attrs.float("alpha", 1e-4), beta=ctx.attrs.float("beta", 0.75), bias=ctx.attrs.float("knorm", 2.0),
             size=size)
    return [ctx.op(op, ctx.input(0), i64(ctx, [1], "axes"))]



BATCH_NORM = aliases("mxnet", ["BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm"], batch_norm,
                     produces=[BatchNormInference, Multiply, Add])
INSTANCE_NORM = extractor("mxnet", "InstanceNorm", instance_norm, produces=[MVN, Reshape, Multiply, Add])
LAYER_NORM = extractor("mxnet", "LayerNorm", layer_norm, produces=[MVN, Reshape, Multiply, Add])
L2_NORMALIZATION = extractor("mxnet", "L2Normalization", l2_normalization, produces=[NormalizeL2])
LRN_EXTRACTOR = extractor("mxnet", "LRN", lrn, produces=[LRN])
