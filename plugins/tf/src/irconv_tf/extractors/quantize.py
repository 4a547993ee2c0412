"""TF fake quantisation (quantisation-aware training graphs) as opset FakeQuantize, and
QuantizeAndDequantizeV2/V3/V4 spelled out with TF's own scale arithmetic."""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import aliases, extractor, i64, input_constant, input_scalar, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Divide,
    FakeQuantize,
    Floor,
    Greater,
    Less,
    Maximum,
    Minimum,
    Multiply,
    ReduceMax,
    ReduceMin,
    Reshape,
    Round,
    Select,
)


def nudged_range(low: float, high: float, num_bits: int, narrow_range: bool) -> tuple[np.float32, np.float32, int]:
    """TF's nudged [min, max] (zero exactly representable) and the number of levels.
    scale = (max - min) / (qmax - qmin); the zero point qmin - min / scale is rounded (half
    away from zero) and clamped to [qmin, qmax]; the range is rebuilt around it.
    """
    f32 = np.float32
    q_min = 1 if narrow_range else 0
    q_max = (1 << num_bits) - 1
    scale = (f32(high) - f32(low)) / f32(q_max - q_min)
    zero_point = f32(q_min) - f32(low) / scale
    if zero_point < q_min:
        nudged = f32(q_min)
    elif zero_point > q_max:
        nudged = f32(q_max)
    else:
        nudged = f32(np.sign(zero_point) * np.floor(np.abs(zero_point) + f32(0.5)))
    return f32((q_min - nudged) * scale), f32((q_max - nudged) * scale), q_max - q_min + 1


def _fake_quant(node: Node, ctx: ExtractContext, from_inputs: bool) -> list[OutPort]:
    """FakeQuantWithMinMaxArgs (attributes) and ...Vars (constant min/max inputs)."""
    if from_inputs:
        low = float(input_scalar(ctx, 1, "min"))
        high = float(input_scalar(ctx, 2, "max"))
    else:
        low, high = ctx.attrs.float("min", -6.0), ctx.attrs.float("max", 6.0)
    lo, hi, levels = nudged_range(low, high, ctx.attrs.int("num_bits", 8), ctx.attrs.bool("narrow_range", False))
    lo_port, hi_port = ctx.const(lo, suffix="nudged_min"), ctx.const(hi, suffix="nudged_max")
    op = FakeQuantize(levels=levels)
    return [ctx.op(op, ctx.input(0), lo_port, hi_port, lo_port, hi_port)]


def _quantize_and_dequantize(node: Node, ctx: ExtractContext, version: int) -> list[OutPort]:
    """QuantizeAndDequantizeV2/V3/V4 (input, input_min, input_max[, num_bits]): TF's kernel.
    The quantised range [qmin, qmax] is [-2^(b-1) (+1 if narrow), 2^(b-1) - 1] when signed,
    else [0, 2^b - 1]; [min, max] is the data's own (reductions) unless ``range_given``. The
    scale is the largest keeping both sides in range, min(qmin / min, qmax / max) over the
    sides whose product is positive; the other side of the range is rebuilt from it
    (inverse = min / qmin, max = qmax * inverse, or the other way round). Then
    round(clamp(x) * scale) * inverse, clamped only when the range is given; V3 always rounds
    half to even, V2/V4 as ``round_mode`` says (HALF_UP: floor(v + 0.5)). ``axis`` >= 0
    quantises per slice of that axis.
    """
    x = ctx.input(0)
    dtype = ctx.input_type(0).numpy if ctx.input_type(0) is not ElementType.dynamic else np.dtype(np.float32)
    if version == 3:
        bits = int(np.asarray(input_constant(ctx, 3, "num_bits")).reshape(-1)[0])
        mode = "HALF_TO_EVEN"
    else:
        bits = ctx.attrs.int("num_bits", 8)
        mode = ctx.attrs.str("round_mode", "HALF_TO_EVEN")
    signed, narrow = ctx.attrs.bool("signed_input", True), ctx.attrs.bool("narrow_range", False)
    range_given, axis = ctx.attrs.bool("range_given", False), ctx.attrs.int("axis", -1)
    rank = require_rank(ctx, 0)
    if axis != -1:
        axis = normalize_axis(ctx, axis, rank)
    if signed:
        q_min = -(1 << (bits - 1)) + (1 if narrow else 0)
        q_max = (1 << (bits - 1)) - 1
    else:
        q_min, q_max = 0, (1 << bits) - 1

    def const(value: Any, suffix: str) -> OutPort:
        return ctx.const(np.asarray(value, dtype), suffix=suffix)

    if range_given:
        low, high = ctx.input(1), ctx.input(2)
        if axis != -1 and axis != rank - 1:
            target = i64(ctx, [-1] + [1] * (rank - axis - 1), "per_axis_shape")
            low = ctx.op(Reshape(special_zero=False), low, target, suffix="min_per_axis")
            high = ctx.op(Reshape(special_zero=False), high, target, suffix="max_per_axis")
    else:
        axes = i64(ctx, [a for a in range(rank) if a != axis], "reduce_axes")
        per_axis = axis != -1
        low = ctx.op(ReduceMin(keep_dims=per_axis), x, axes, suffix="data_min")
        high = ctx.op(ReduceMax(keep_dims=per_axis), x, axes, suffix="data_max")
    q_lo, q_hi = const(q_min, "q_min"), const(q_max, "q_max")
    largest = const(np.finfo(dtype).max, "largest")
    zero = const(0.0, "zero")

    def scale_from(q_end: OutPort, bound: OutPort, suffix: str) -> OutPort:
        """q_end / bound where the two share a sign (that side can bound the scale), else the largest value."""
        same_sign = ctx.op(Greater(), ctx.op(Multiply(), q_end, bound), zero)
        return ctx.op(Select(), same_sign, ctx.op(Divide(), q_end, bound), largest, suffix=suffix)

    high_side = scale_from(q_hi, high, "scale_from_max")
    high_inverse = ctx.op(Divide(), high, q_hi, suffix="inverse_from_max")
    if q_min == 0:  # the min side never bounds the scale
        scale, inverse = high_side, high_inverse
        low = ctx.op(Multiply(), q_lo, inverse, suffix="rebuilt_min")
    else:
        low_side = scale_from(q_lo, low, "scale_from_min")
        by_min = ctx.op(Less(), low_side, high_side, suffix="min_side_bounds")
        scale = ctx.op(Select(), by_min, low_side, high_side, suffix="scale")
        low_inverse = ctx.op(Divide(), low, q_lo, suffix="inverse_from_min")
        inverse = ctx.op(Select(), by_min, low_inverse, high_inverse, suffix="inverse_scale")
        new_low = ctx.op(Select(), by_min, low, ctx.op(Multiply(), q_lo, inverse), suffix="rebuilt_min")
        high = ctx.op(Select(), by_min, ctx.op(Multiply(), q_hi, inverse), high, suffix="rebuilt_max")
        low = new_low
    if range_given:  # TF clamps only a given range (the data's own needs none)
        x = ctx.op(Minimum(), ctx.op(Maximum(), x, low), high, suffix="clamped")
    scaled = ctx.op(Multiply(), x, scale, suffix="scaled")
    if mode == "HALF_TO_EVEN":
        rounded = ctx.op(Round(mode="half_to_even"), scaled, suffix="rounded")
    elif mode == "HALF_UP":
        rounded = ctx.op(Floor(), ctx.op(Add(), scaled, const(0.5, "half")), suffix="rounded")
    else:
        raise ConversionError(f"{ctx.where()}: unknown round_mode {quoted(mode)}")
    return [ctx.op(Multiply(), rounded, inverse, suffix="dequantized")]


@extractor("tf", "FakeQuantWithMinMaxArgs", produces=[FakeQuantize])
def _fake_quant_with_min_max_args(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _fake_quant(node, ctx, False)


@extractor("tf", "FakeQuantWithMinMaxVars", produces=[FakeQuantize])
def _fake_quant_with_min_max_vars(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _fake_quant(node, ctx, True)


def _quantize_and_dequantize_any(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _quantize_and_dequantize(node, ctx, int(ctx.source_op.op_type.removeprefix("QuantizeAndDequantizeV")))


QUANTIZE_AND_DEQUANTIZE = aliases(
    "tf",
    [f"QuantizeAndDequantizeV{v}" for v in (2, 3, 4)],
    _quantize_and_dequantize_any,
    produces=[ReduceMin, ReduceMax, Divide, Select, Multiply, Round, Greater, Less, Maximum, Minimum, Reshape, Add, Floor],
)
