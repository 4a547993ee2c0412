"""Quantization in the float domain (see ``irconv_tflite.loader``).

A quantized tensor is its real values: ``QUANTIZED_TENSOR`` puts them on the tensor's grid
with a FakeQuantize (``levels`` = the integer type's range, low/high = the real values of
its ends), which OpenVINO's low-precision transformations turn into int8 arithmetic.
QUANTIZE and DEQUANTIZE between a float and a quantized tensor are then identities (the
FakeQuantize after a QUANTIZE does the rounding); DEQUANTIZE of float16 weights is a
Convert. Integer model inputs and outputs are converted at the model's edge.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import extractor, per_axis
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Add, Clamp, Convert, Divide, FakeQuantize, Multiply, Round, Subtract

from irconv_tflite.extractors._common import known_rank, laid_out, source
from irconv_tflite.extractors.integer import already_on_grid
from irconv_tflite.loader import PSEUDO

_BOUNDS = {ElementType.i8: (-128, 127), ElementType.u8: (0, 255), ElementType.i16: (-32768, 32767)}


def _grid(ctx: ExtractContext) -> tuple[np.ndarray, np.ndarray, ElementType]:
    """The tensor's scale and zero point, shaped to broadcast against input 0."""
    scale = np.asarray(ctx.attrs.tensor("scale"), np.float32)
    zero = np.asarray(ctx.attrs.tensor("zero_point"), np.float32)
    element = ElementType(ctx.attrs.str("element_type"))
    if scale.size > 1:
        rank = known_rank(ctx)
        axis = ctx.attrs.int("axis", 0)
        scale, zero = per_axis(scale, axis, rank), per_axis(zero, axis, rank)
    else:
        scale, zero = scale.reshape(()), zero.reshape(())
    return scale, zero, element


@extractor("tflite", "QUANTIZED_TENSOR", domain=PSEUDO, produces=[FakeQuantize])
def quantized_tensor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    scale, zero, element = _grid(ctx)
    if scale.ndim == 0 and already_on_grid(ctx, ctx.input(0), float(scale), int(zero)):
        return [ctx.input(0)]  # an integer form's output (or values moved from one): already on this grid
    low_q, high_q = _BOUNDS[element]
    low = ((low_q - zero) * scale).astype(np.float32)
    high = ((high_q - zero) * scale).astype(np.float32)
    lows, highs = ctx.const(low, suffix="low"), ctx.const(high, suffix="high")
    op = FakeQuantize(levels=high_q - low_q + 1)
    inputs = [ctx.input(0), lows, highs, lows, highs]
    shape = source(ctx).outputs[0].shape
    if scale.ndim == 0 and shape is not None and len(shape) == 4:
        # A per-tensor grid computes the same in any layout: marked NHWC, the layout plugin
        # wraps it like the convolutions around it, so their transposes cancel through it.
        return [laid_out(ctx, op, inputs).out_port(0)]
    return [ctx.op(op, *inputs, suffix="fq")]


@extractor("tflite", "DEQUANTIZE_INPUT", domain=PSEUDO, produces=[Convert, Subtract, Multiply])
def dequantize_input(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """An integer model input to its real values: (q - zero_point) * scale."""
    scale, zero, _ = _grid(ctx)
    value = ctx.op(Convert(destination_type=ElementType.f32), ctx.input(0), suffix="to_float")
    if np.any(zero != 0):
        value = ctx.op(Subtract(), value, ctx.const(zero, suffix="zero_point"), suffix="shifted")
    return [ctx.op(Multiply(), value, ctx.const(scale, suffix="scale"), suffix="dequantized")]


@extractor("tflite", "QUANTIZE_OUTPUT", domain=PSEUDO, produces=[Divide, Add, Round, Clamp, Convert])
def quantize_output(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Real values to an integer model output: clamp(round(x / scale) + zero_point)."""
    scale, zero, element = _grid(ctx)
    low_q, high_q = _BOUNDS[element]
    value = ctx.op(Divide(), ctx.input(0), ctx.const(scale, suffix="scale"), suffix="scaled")
    value = ctx.op(Round(mode="half_away_from_zero"), value, suffix="rounded")
    if np.any(zero != 0):
        value = ctx.op(Add(), value, ctx.const(zero, suffix="zero_point"), suffix="shifted")
    value = ctx.op(Clamp(min=float(low_q), max=float(high_q)), value, suffix="saturated")
    return [ctx.op(Convert(destination_type=element), value, suffix="quantized")]


@extractor("tflite", "QUANTIZE", produces=[])
def quantize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Float or requantized input: the FakeQuantize on the output tensor rounds it."""
    return [ctx.input(0)]


@extractor("tflite", "DEQUANTIZE", produces=[Convert])
def dequantize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """float16 weights: a Convert; a quantized tensor is already its real values."""
    if ctx.input_type(0) is ElementType.f32:
        return [ctx.input(0)]
    return [ctx.op(Convert(destination_type=ElementType.f32), ctx.input(0), suffix="to_float")]


@extractor("tflite", "FAKE_QUANT", produces=[FakeQuantize])
def fake_quant(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TF's FakeQuant with min/max attributes: the range is nudged so that zero lies on the
    grid (zero point = round(q_min - min / scale), clamped to the integer range)."""
    q_min = 1 if ctx.attrs.bool("narrow_range", False) else 0
    q_max = (1 << ctx.attrs.int("num_bits", 8)) - 1
    low, high = np.float32(ctx.attrs.float("min")), np.float32(ctx.attrs.float("max"))
    if not high > low:
        raise ctx.attrs.bad("max", float(high), f"the range must be wider than min={float(low)}")
    scale = (high - low) / np.float32(q_max - q_min)
    zero = float(np.clip(np.floor(q_min - low / scale + 0.5), q_min, q_max))
    lows = ctx.const(np.float32((q_min - zero) * scale), suffix="low")
    highs = ctx.const(np.float32((q_max - zero) * scale), suffix="high")
    op = FakeQuantize(levels=q_max - q_min + 1)
    return [ctx.op(op, ctx.input(0), lows, highs, lows, highs, suffix="fq")]
