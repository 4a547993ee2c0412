"""Normalization layers: BatchNormalization (inference statistics), LayerNormalization."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import f32, i64, normalize_axes, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import MVN, Add, Multiply

from irconv_tf.keras_reader.extractors._base import keras, variables


def _along(values: np.ndarray, axes: list[int], rank: int) -> np.ndarray:
    """Per-axis parameters shaped to broadcast against a rank-``rank`` input (a vector over
    the last axis stays a vector)."""
    if axes == list(range(rank - values.ndim, rank)):
        return values
    shape = [1] * rank
    for axis, size in zip(axes, values.shape, strict=False):
        shape[axis] = size
    return values.reshape(shape)


def _axes(ctx: ExtractContext, rank: int) -> list[int]:
    axis = ctx.attrs.get("axis", -1)
    return sorted(normalize_axes(ctx, [axis] if isinstance(axis, int) else ctx.attrs.ints("axis"), rank))


def _batch_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """y = x * s + (beta - mean * s), s = gamma / sqrt(moving_variance + epsilon)."""
    rank = require_rank(ctx, 0)
    axes = _axes(ctx, rank)
    if ctx.attrs.bool("renorm", False):
        raise ctx.attrs.bad("renorm", True, "batch renormalization")
    scale, center = ctx.attrs.bool("scale", True), ctx.attrs.bool("center", True)
    found = variables(ctx, 2 + scale + center)
    found = [v.astype(np.float64) for v in found]
    gamma = found.pop(0) if scale else 1.0
    beta = found.pop(0) if center else 0.0
    mean, variance = found[:2]
    factor = gamma / np.sqrt(variance + ctx.attrs.float("epsilon", 1e-3))
    shift = beta - mean * factor
    factor, shift = (_along(np.asarray(v, np.float32), axes, rank) for v in (factor, shift))
    scaled = ctx.op(Multiply(), ctx.input(0), f32(ctx, factor, "scale"), suffix="scale")
    return [ctx.op(Add(), scaled, f32(ctx, shift, "shift"), suffix="shift")]


def _layer_normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(x - mean) / sqrt(variance + epsilon) over ``axis``, then * gamma + beta."""
    rank = require_rank(ctx, 0)
    axes = _axes(ctx, rank)
    if ctx.attrs.bool("rms_scaling", False):
        raise ctx.attrs.bad("rms_scaling", True, "RMS scaling")
    scale, center = ctx.attrs.bool("scale", True), ctx.attrs.bool("center", True)
    found = variables(ctx, scale + center)
    mvn = MVN(normalize_variance=True, eps=ctx.attrs.float("epsilon", 1e-3), eps_mode="inside_sqrt")
    y = ctx.op(mvn, ctx.input(0), i64(ctx, axes, "axes"), suffix="mvn")
    if scale:
        y = ctx.op(
            Multiply(), y, f32(ctx, _along(found.pop(0).astype(np.float32), axes, rank), "gamma"), suffix="gamma"
        )
    if center:
        y = ctx.op(Add(), y, f32(ctx, _along(found.pop(0).astype(np.float32), axes, rank), "beta"), suffix="beta")
    return [y]


BATCH_NORMALIZATION = keras("BatchNormalization", _batch_normalization, produces=[Multiply, Add])
LAYER_NORMALIZATION = keras("LayerNormalization", _layer_normalization, produces=[MVN, Multiply, Add])
