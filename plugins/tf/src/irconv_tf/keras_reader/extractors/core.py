"""Core layers: Dense, Embedding, the identity layers at inference, Rescaling, Normalization."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, f32, i64, normalize_axes, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Add, Convert, Divide, Gather, MatMul, Multiply, Subtract
from irconv_opset.lowering.convolution import CHANNEL_BIAS_OPS

from irconv_tf.keras_reader.extractors._base import as_float32, finish, variables
from irconv_tf.keras_reader.extractors.activation_functions import FUNCTION_OPS


@extractor("keras", "Dense", produces=[MatMul, *CHANNEL_BIAS_OPS, *FUNCTION_OPS])
def _dense(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x @ kernel (+ bias) over the last axis, whatever the input's rank."""
    rank = require_rank(ctx, 0)
    use_bias = ctx.attrs.bool("use_bias", True)
    found = variables(ctx, 2 if use_bias else 1)
    if ctx.attrs.get("quantization_config") is not None or ctx.attrs.get("lora_rank"):
        raise ctx.attrs.bad("quantization_config", "set", "quantized or LoRA Dense layers")
    product = ctx.op(MatMul(), ctx.input(0), f32(ctx, found[0], "kernel"), suffix="matmul")
    return finish(ctx, product, found[1] if use_bias else None, rank, rank - 1)


def _identity(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Layers that only act while training."""
    return [ctx.input(0)]


IDENTITY = aliases(
    "keras",
    [
        "Dropout",
        "SpatialDropout1D",
        "SpatialDropout2D",
        "SpatialDropout3D",
        "GaussianNoise",
        "GaussianDropout",
        "AlphaDropout",
        "ActivityRegularization",
        "Identity",
    ],
    _identity,
    produces=[],
)


@extractor("keras", "Embedding", produces=[Gather, Convert])
def _embedding(node: Node, ctx: ExtractContext) -> list[OutPort]:
    (table,) = variables(ctx, 1)
    indices = ctx.input(0)
    if not ctx.input_type(0).is_integer:  # Keras casts the indices to int32
        indices = ctx.op(Convert(destination_type=ElementType.i32), indices, suffix="indices")
    return [ctx.op(Gather(), f32(ctx, table, "embeddings"), indices, i64(ctx, 0, "axis"), suffix="gather")]


@extractor("keras", "Rescaling", produces=[Multiply, Add, Convert])
def _rescaling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    scale, offset = (_floats(ctx, name, default) for name, default in (("scale", 1.0), ("offset", 0.0)))
    scaled = ctx.op(Multiply(), as_float32(ctx, ctx.input(0)), f32(ctx, scale, "scale"), suffix="scale")
    return [ctx.op(Add(), scaled, f32(ctx, offset, "offset"), suffix="offset")]


def _floats(ctx: ExtractContext, name: str, default: float) -> np.ndarray:
    """A number or (nested) list of numbers of the config, as a float32 array."""
    value = ctx.attrs.get(name, default)
    try:
        return np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError):
        raise ctx.attrs.bad(name, value, "expected a number or a list of numbers") from None


#: keras.backend.epsilon(), the floor of Normalization's standard deviation
_EPSILON = 1e-7


@extractor("keras", "Normalization", produces=[Subtract, Divide, Multiply, Add, Convert])
def _normalization(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(x - mean) / max(sqrt(variance), epsilon), or its inverse; the statistics come from
    the config when given there, else from the adapted variables (mean, variance, count)."""
    rank = require_rank(ctx, 0)
    axis = ctx.attrs.get("axis", -1)
    kept = (
        [] if axis is None else normalize_axes(ctx, [axis] if isinstance(axis, int) else ctx.attrs.ints("axis"), rank)
    )
    if ctx.attrs.get("mean") is not None:
        mean, variance = _floats(ctx, "mean", 0.0), _floats(ctx, "variance", 1.0)
        if mean.shape != variance.shape:
            raise ctx.attrs.bad("variance", ctx.attrs.get("variance"), "not the shape of mean")
    else:
        mean, variance = (v.astype(np.float32) for v in variables(ctx, 3)[:2])  # adapted: mean, variance, count
    shape = [1] * rank
    static = ctx.input_shape(0) or (None,) * rank
    for a in kept:
        shape[a] = static[a] or -1  # one unknown kept axis: NumPy's reshape infers it
    if mean.size != 1:
        try:
            mean, variance = mean.reshape(shape), variance.reshape(shape)
        except ValueError:
            raise ctx.attrs.bad("axis", axis, f"statistics of shape {mean.shape} do not fit the input") from None
    std = np.maximum(np.sqrt(variance), np.float32(_EPSILON)).astype(np.float32)
    x = as_float32(ctx, ctx.input(0))
    if ctx.attrs.bool("invert", False):
        scaled = ctx.op(Multiply(), x, f32(ctx, std, "std"), suffix="scale")
        return [ctx.op(Add(), scaled, f32(ctx, mean, "mean"), suffix="shift")]
    centered = ctx.op(Subtract(), x, f32(ctx, mean, "mean"), suffix="center")
    return [ctx.op(Divide(), centered, f32(ctx, std, "std"), suffix="scale")]
