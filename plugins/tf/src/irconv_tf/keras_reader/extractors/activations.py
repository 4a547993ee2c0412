"""Activation layers: Activation, ReLU, LeakyReLU, PReLU, ELU, Softmax."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import extractor, f32, normalize_axes, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import (
    Clamp,
    Elu,
    Greater,
    Minimum,
    Multiply,
    Negative,
    PReLU,
    ReLU,
    Select,
    SoftMax,
    Subtract,
)

from irconv_tf.keras_reader.extractors._base import layer, variables
from irconv_tf.keras_reader.extractors.activation_functions import FUNCTION_OPS, activate


@extractor("keras", "Activation", produces=FUNCTION_OPS)
def _activation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [activate(ctx, ctx.input(0), ctx.attrs.get("activation"), "activation")]


@extractor("keras", "ReLU", produces=[ReLU, Clamp, Greater, Select, Minimum, Negative, Multiply, Subtract])
def _relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """keras.activations.relu(x, negative_slope, max_value, threshold):
    x' = x * (x > threshold) (or relu(x)), clipped to [0, max_value], minus
    negative_slope * relu(threshold - x)."""
    x = ctx.input(0)
    max_value = ctx.attrs.get("max_value")
    slope = ctx.attrs.float("negative_slope", 0.0)
    threshold = ctx.attrs.float("threshold", 0.0)
    if threshold == 0.0 and max_value is None:
        result = ctx.op(ReLU(), x, suffix="relu")
    elif threshold == 0.0:
        result = ctx.op(Clamp(min=0.0, max=ctx.attrs.float("max_value")), x, suffix="relu")
    else:
        above = ctx.op(Greater(), x, f32(ctx, threshold, "threshold"), suffix="above")
        result = ctx.op(Select(), above, x, f32(ctx, 0.0, "zero"), suffix="relu")
        if max_value is not None:
            result = ctx.op(Clamp(min=0.0, max=ctx.attrs.float("max_value")), result, suffix="clip")
    if slope != 0.0:
        below = x if threshold == 0.0 else ctx.op(Subtract(), x, f32(ctx, threshold, "threshold"), suffix="shifted")
        negative_part = ctx.op(ReLU(), ctx.op(Negative(), below, suffix="negated"), suffix="negative_part")
        scaled = ctx.op(Multiply(), negative_part, f32(ctx, slope, "slope"), suffix="scaled")
        result = ctx.op(Subtract(), result, scaled, suffix="leaky")
    return [result]


@extractor("keras", "LeakyReLU", produces=[PReLU])
def _leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    # Keras 3 says negative_slope, Keras 2 configs alpha
    slope = ctx.attrs.float("negative_slope", ctx.attrs.float("alpha", 0.3))
    return [ctx.op(PReLU(), ctx.input(0), f32(ctx, [slope], "slope"), suffix="prelu")]


@extractor("keras", "PReLU", produces=[PReLU])
def _prelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """alpha has the input's shape without the batch (1 along shared axes): given the
    data's rank, it broadcasts as NumPy does (a 1-D slope would mean the IR's channel axis 1)."""
    rank = require_rank(ctx, 0)
    (alpha,) = variables(ctx, 1)
    slope = alpha.astype(np.float32).reshape((1,) * (rank - alpha.ndim) + alpha.shape)
    return [ctx.op(PReLU(), ctx.input(0), f32(ctx, slope, "alpha"), suffix="prelu")]


@extractor("keras", "ELU", produces=[Elu])
def _elu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Elu(alpha=ctx.attrs.float("alpha", 1.0)), ctx.input(0), suffix="elu")]


@extractor("keras", "Softmax", produces=[SoftMax])
def _softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = require_rank(ctx, 0)
    axis = ctx.attrs.get("axis", -1)
    axes = normalize_axes(ctx, [axis] if isinstance(axis, int) else ctx.attrs.ints("axis"), rank)
    if len(axes) != 1:
        raise ctx.attrs.bad("axis", axis, "a softmax over several axes at once")
    if len(layer(ctx).arguments) > 1:  # a mask tensor
        raise ctx.attrs.bad("mask", "a tensor", "masked softmax")
    return [ctx.op(SoftMax(axis=axes[0]), ctx.input(0), suffix="softmax")]
