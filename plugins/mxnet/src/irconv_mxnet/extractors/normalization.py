"""BatchNorm, InstanceNorm, LayerNorm, L2Normalization, LRN."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, const_like, extractor, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import LRN, BatchNormInference, NormalizeL2
from irconv_opset.lowering.normalization import (
    FOLDED_BATCH_NORM_OPS,
    NORMALIZED_OPS,
    Affine,
    BatchStatistics,
    folded_batch_norm,
    normalized,
)


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
        stats = BatchStatistics(*(np.asarray(v) for v in values))
        out = folded_batch_norm(ctx, x, stats, eps, [axis], data_rank)
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


@extractor("mxnet", "InstanceNorm", produces=[*NORMALIZED_OPS])
def instance_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(x - mean) / sqrt(var + eps) over the spatial axes, then gamma/beta per channel."""
    data_rank = require_rank(ctx)
    affine = Affine(scale=ctx.input(1), shift=ctx.input(2), axis=1, rank=data_rank)
    return [normalized(ctx, ctx.input(0), range(2, data_rank), ctx.attrs.float("eps", 1e-3), affine)]


@extractor("mxnet", "LayerNorm", produces=[*NORMALIZED_OPS])
def layer_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Normalised over one ``axis`` (default -1), then gamma/beta along it."""
    data_rank = require_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), data_rank)
    affine = Affine(scale=ctx.input(1), shift=ctx.input(2), axis=axis, rank=data_rank)
    return [normalized(ctx, ctx.input(0), [axis], ctx.attrs.float("eps", 1e-5), affine)]


@extractor("mxnet", "L2Normalization", produces=[NormalizeL2])
def l2_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x / sqrt(sum(x^2) + eps): over all but axis 0 (instance), axis 1 (channel) or the
    spatial axes (spatial)."""
    data_rank = require_rank(ctx)
    mode = ctx.attrs.choice("mode", ["instance", "channel", "spatial"], "instance")
    axes = {"instance": list(range(1, data_rank)), "channel": [1], "spatial": list(range(2, data_rank))}[mode]
    op = NormalizeL2(eps=ctx.attrs.float("eps", 1e-10), eps_mode="add")
    return [ctx.op(op, ctx.input(0), i64(ctx, axes, "axes"))]


@extractor("mxnet", "LRN", produces=[LRN])
def lrn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MXNet LRN: x / (knorm + alpha/nsize * sum(x^2))^beta across channels."""
    size = ctx.attrs.int("nsize")
    op = LRN(alpha=ctx.attrs.float("alpha", 1e-4), beta=ctx.attrs.float("beta", 0.75), bias=ctx.attrs.float("knorm", 2.0),
             size=size)
    return [ctx.op(op, ctx.input(0), i64(ctx, [1], "axes"))]



BATCH_NORM = aliases("mxnet", ["BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm"], batch_norm,
                     produces=[BatchNormInference, *FOLDED_BATCH_NORM_OPS])
