"""Normalization layers: BatchNormalization (inference statistics), LayerNormalization."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import extractor, f32, normalize_axes, require_rank
from irconv.graph import Node, OutPort
from irconv_opset.lowering.normalization import (
    FOLDED_BATCH_NORM_OPS,
    NORMALIZED_OPS,
    Affine,
    BatchStatistics,
    folded_batch_norm,
    laid_along,
    normalized,
)

from irconv_tf.keras_reader.extractors._base import variables


def _axes(ctx: ExtractContext, rank: int) -> list[int]:
    axis = ctx.attrs.get("axis", -1)
    return sorted(normalize_axes(ctx, [axis] if isinstance(axis, int) else ctx.attrs.ints("axis"), rank))


@extractor("keras", "BatchNormalization", produces=[*FOLDED_BATCH_NORM_OPS])
def _batch_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """y = x * s + (beta - mean * s), s = gamma / sqrt(moving_variance + epsilon)."""
    rank = require_rank(ctx, 0)
    axes = _axes(ctx, rank)
    if ctx.attrs.bool("renorm", False):
        raise ctx.attrs.bad("renorm", True, "batch renormalization")
    scale, center = ctx.attrs.bool("scale", True), ctx.attrs.bool("center", True)
    found = variables(ctx, 2 + scale + center)
    mean, variance = found[-2:]
    gamma = found[0] if scale else np.ones_like(mean)
    beta = found[int(scale)] if center else np.zeros_like(mean)
    stats = BatchStatistics(gamma, beta, mean, variance)
    return [folded_batch_norm(ctx, ctx.input(0), stats, ctx.attrs.float("epsilon", 1e-3), axes, rank)]


@extractor("keras", "LayerNormalization", produces=[*NORMALIZED_OPS])
def _layer_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(x - mean) / sqrt(variance + epsilon) over ``axis``, then * gamma + beta."""
    rank = require_rank(ctx, 0)
    axes = _axes(ctx, rank)
    if ctx.attrs.bool("rms_scaling", False):
        raise ctx.attrs.bad("rms_scaling", True, "RMS scaling")
    scale, center = ctx.attrs.bool("scale", True), ctx.attrs.bool("center", True)
    found = variables(ctx, scale + center)  # gamma, then beta
    gamma = f32(ctx, laid_along(found[0], axes, rank), "gamma") if scale else None
    beta = f32(ctx, laid_along(found[-1], axes, rank), "beta") if center else None
    affine = Affine(scale=gamma, shift=beta)
    return [normalized(ctx, ctx.input(0), axes, ctx.attrs.float("epsilon", 1e-3), affine)]
