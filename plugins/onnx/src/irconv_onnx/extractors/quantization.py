"""Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul,
MatMulInteger, ConvInteger, expressed with float arithmetic, Round, Clamp and Convert."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.errors import quoted
from irconv.frontend import const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Clamp,
    Concat,
    Convert,
    ConvertLike,
    Divide,
    Gather,
    IsNaN,
    MatMul,
    Maximum,
    Minimum,
    Multiply,
    Negative,
    Range,
    ReduceMax,
    ReduceMin,
    Reshape,
    Round,
    Select,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
)
from irconv_opset.build import all_axes, shape_of
from irconv_opset.lowering.convolution import CHANNEL_BIAS_OPS, CONVOLUTION_OPS, channel_bias, convolution

from irconv_onnx.extractors._common import et_of_onnx
from irconv_onnx.extractors._optional import HANDLED, with_defaults

ZERO_POINTS = {2: HANDLED, 3: HANDLED}  # no zero point: nothing subtracted

_RANGES = {
    ElementType.u8: (0, 255), ElementType.i8: (-128, 127), ElementType.u16: (0, 65535),
    ElementType.i16: (-32768, 32767), ElementType.i32: (-(2**31), 2**31 - 1), ElementType.u32: (0, 2**32 - 1),
}


def _along_axis(ctx: ExtractContext, param: OutPort, data_idx: int, axis: int) -> OutPort:
    """A per-axis 1-D scale/zero point reshaped to broadcast along ``axis`` of the data."""
    shape = param.data.shape
    if shape is None or len(shape) != 1 or shape == (1,):
        return param
    rank = ctx.input_rank(data_idx)
    if rank is None:
        raise ctx.attrs.bad("axis", axis, "per-axis quantization needs the data rank")
    axis = axis % rank
    return ctx.op(Reshape(special_zero=False), param, i64(ctx, [-1] + [1] * (rank - 1 - axis)), suffix="per_axis")


def _parameter(ctx: ExtractContext, idx: int, axis: int) -> OutPort:
    """Scale or zero point ``idx`` shaped to broadcast against the data (input 0): per tensor,
    per ``axis``, or blocked (``block_size`` > 0: the same rank as the data, each entry
    covering ``block_size`` consecutive elements along ``axis``)."""
    block = ctx.attrs.int("block_size", 0)
    if not block:
        return _along_axis(ctx, ctx.input(idx), 0, axis)
    rank = ctx.input_rank(0)
    if rank is None:
        raise ctx.attrs.bad("block_size", block, "blocked quantization needs the data rank")
    axis %= rank
    length = ctx.op(Gather(), shape_of(ctx, ctx.input(0)), i64(ctx, axis), i64(ctx, 0),
                    suffix="length")
    positions = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), length, i64(ctx, 1), suffix="positions")
    blocks = ctx.op(Divide(m_pythondiv=True), positions, i64(ctx, block), suffix="blocks")
    return ctx.op(Gather(), ctx.input(idx), blocks, i64(ctx, axis), suffix=f"blocked_{idx}")


#: What ``convert_to_float8`` may build.
FLOAT8_OPS = (Convert, Clamp, IsNaN, Select, ConvertLike)


def convert_to_float8(ctx: ExtractContext, value: OutPort, target: ElementType, saturate: bool,
                      like: OutPort | None = None) -> OutPort:
    """``value`` cast to the 8-bit float ``target`` as ONNX's Cast does (``like``: a ConvertLike).

    OpenVINO's Convert to f8 rounds to nearest even and does not saturate (overflow gives
    inf for f8e5m2, NaN for f8e4m3), which is ONNX's ``saturate=0``. For ``saturate=1``
    out of range values and infinities go to the largest finite value of their sign: a
    Clamp first, with NaN kept (Clamp alone would turn it into the lower bound).
    """
    from irconv.narrow_float import max_finite
    if saturate:
        source = value.data.element_type
        if not source.is_float or source.is_float8:  # Clamp in f32 (OpenVINO's Clamp takes no f8)
            value = ctx.op(Convert(destination_type=ElementType.f32), value, suffix="to_float")
        bound = max_finite(target)
        clamped = ctx.op(Clamp(min=-bound, max=bound), value, suffix="saturated")
        value = ctx.op(Select(), ctx.op(IsNaN(), value, suffix="nan"), value, clamped, suffix="saturated_nan")
    if like is not None:
        return ctx.op(ConvertLike(), value, like, suffix="float8")
    return ctx.op(Convert(destination_type=target), value, suffix="float8")


def _quantize_float(ctx: ExtractContext, value: OutPort, scale: OutPort, zero: OutPort | None,
                    target: ElementType) -> OutPort:
    """saturate(round(value / scale) + zero_point) as ``target``."""
    if target not in _RANGES:
        raise ValueError(f"quantizing to {target.value} is not supported")
    low, high = _RANGES[target]
    y = ctx.op(Round(mode="half_to_even"), ctx.op(Divide(), value, scale, suffix="scaled"), suffix="rounded")
    if zero is not None:
        y = ctx.op(Add(), y, ctx.op(Convert(destination_type=value.data.element_type
                                            if value.data.element_type.is_float else ElementType.f32),
                                    zero, suffix="zero_float"), suffix="shifted")
    y = ctx.op(Clamp(min=float(low), max=float(high)), y, suffix="saturated")
    return ctx.op(Convert(destination_type=target), y, suffix="quantized")


@extractor("onnx", "QuantizeLinear", versions=(10, None), produces=[Divide, Round, Clamp, Convert, Add, ConvertLike, Gather, IsNaN, Range, Reshape, Select, ShapeOf])
@with_defaults({2: HANDLED})
def _quantize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    axis = a.int("axis", 1)
    if ctx.has_input(2):
        target = ctx.input(2).data.element_type
    elif "output_dtype" in a and a.int("output_dtype"):
        target = et_of_onnx(a.int("output_dtype"), f"node {quoted(node.name)} output_dtype")
    else:
        target = ElementType.u8
    if target.is_float8:
        return [_quantize_float8(ctx, target, axis, a.int("saturate", 1) != 0)]
    if target not in _RANGES:
        raise a.bad("output type", target.value,
                    "OpenVINO quantization supports 8/16/32-bit integers and f8e4m3/f8e5m2")
    x = ctx.input(0)
    scale = _parameter(ctx, 1, axis)
    zero = _parameter(ctx, 2, axis) if ctx.has_input(2) else None
    return [_quantize_float(ctx, x, scale, zero, target)]


def _quantize_float8(ctx: ExtractContext, target: ElementType, axis: int, saturate: bool) -> OutPort:
    """Float 8 QuantizeLinear: cast(x / scale + zero_point) with ``saturate`` (no integer rounding)."""
    x = ctx.input(0)
    y = ctx.op(Divide(), x, _parameter(ctx, 1, axis), suffix="scaled")
    if ctx.has_input(2):
        float_type = y.data.element_type if y.data.element_type.is_float else ElementType.f32
        zero = ctx.op(Convert(destination_type=float_type), _parameter(ctx, 2, axis), suffix="zero_float")
        y = ctx.op(Add(), y, zero, suffix="shifted")
    return convert_to_float8(ctx, y, target, saturate)


def _dequantize_port(ctx: ExtractContext, x: OutPort, scale: OutPort, zero: OutPort | None) -> OutPort:
    value = ctx.op(ConvertLike(), x, scale, suffix="to_float")
    if zero is not None:
        value = ctx.op(Subtract(), value, ctx.op(ConvertLike(), zero, scale, suffix="zero_float"), suffix="centered")
    return ctx.op(Multiply(), value, scale, suffix="dequantized")


@extractor("onnx", "DequantizeLinear", versions=(10, None), produces=[Convert, Subtract, Multiply, ConvertLike, Divide, Gather, Range, Reshape, ShapeOf])
@with_defaults({2: HANDLED})
def _dequantize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = ctx.attrs.int("axis", 1)
    scale = _parameter(ctx, 1, axis)
    zero = _parameter(ctx, 2, axis) if ctx.has_input(2) else None
    return [_dequantize_port(ctx, ctx.input(0), scale, zero)]


@extractor("onnx", "DynamicQuantizeLinear", versions=(11, None), produces=[ReduceMax, ReduceMin, Round, Convert, Add, Clamp, Divide, Maximum, Minimum, Negative, Range, ShapeOf, Squeeze, Subtract])
def _dynamic_quantize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """uint8 with scale = (max(0, max x) - min(0, min x)) / 255, zero point from the minimum."""
    x = ctx.input(0)
    axes = all_axes(ctx, x)
    zero = const_like(ctx, 0, x, "zero")
    high = ctx.op(Maximum(), ctx.op(ReduceMax(keep_dims=False), x, axes, suffix="max"), zero, suffix="high")
    low = ctx.op(Minimum(), ctx.op(ReduceMin(keep_dims=False), x, axes, suffix="min"), zero, suffix="low")
    scale = ctx.op(Divide(), ctx.op(Subtract(), high, low, suffix="span"), const_like(ctx, 255, x, "levels"),
                   suffix="scale")
    zp_float = ctx.op(Round(mode="half_to_even"), ctx.op(Divide(), ctx.op(Negative(), low), scale), suffix="zp_round")
    zp_float = ctx.op(Clamp(min=0.0, max=255.0), zp_float, suffix="zp_clamped")
    zp = ctx.op(Convert(destination_type=ElementType.u8), zp_float, suffix="zero_point")
    y = _quantize_float(ctx, x, scale, zp, ElementType.u8)
    return [y, scale, zp]


def _int_product(conv: bool, node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(A - a_zero) x (B - b_zero) computed in f32 (exact for 8-bit data), returned as i32."""
    def centered(idx: int, zero_idx: int, name: str, data_idx: int) -> OutPort:
        value = ctx.op(Convert(destination_type=ElementType.f32), ctx.input(idx), suffix=f"{name}_f32")
        if ctx.has_input(zero_idx):
            zero = ctx.op(Convert(destination_type=ElementType.f32), ctx.input(zero_idx), suffix=f"{name}_zero")
            if conv and name == "w":
                zero = _along_axis(ctx, zero, data_idx, 0)
            elif not conv and name == "a":
                zero = _along_axis(ctx, zero, data_idx, -2) if zero.data.shape not in ((), (1,)) else zero
            value = ctx.op(Subtract(), value, zero, suffix=f"{name}_centered")
        return value

    if conv:
        from irconv_onnx.extractors.nn import conv_window, spatial_rank

        a = ctx.attrs
        x, w = centered(0, 2, "x", 0), centered(1, 3, "w", 1)
        out = convolution(ctx, x, w, conv_window(a, spatial_rank(node, ctx, 1)), a.int("group", 1))
    else:
        out = ctx.op(MatMul(), centered(0, 2, "a", 0), centered(1, 3, "b", 1), suffix="matmul")
    return [ctx.op(Convert(destination_type=ElementType.i32), out)]


@extractor("onnx", "QLinearMatMul", versions=(10, None), produces=[MatMul, Round, Convert, Add, Clamp, ConvertLike, Divide, Multiply, Subtract])
def _qlinear_matmul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a_scale = ctx.input(1)
    a = _dequantize_port(ctx, ctx.input(0), a_scale, ctx.input(2))
    b = _dequantize_port(ctx, ctx.input(3), ctx.input(4), ctx.input(5))
    product = ctx.op(MatMul(), a, b, suffix="matmul")
    target = ctx.input(7).data.element_type
    return [_quantize_float(ctx, product, ctx.input(6), ctx.input(7), target)]


@extractor("onnx", "QLinearConv", versions=(10, None), produces=[*CONVOLUTION_OPS, *CHANNEL_BIAS_OPS, Multiply, Subtract, Divide, ConvertLike,
                            Round, Clamp, Convert])
@with_defaults({8: HANDLED})
def _qlinear_conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Dequantize x and w (w per output channel), convolve in float, add the int32 bias
    scaled by x_scale * w_scale, quantize with y_scale and y_zero_point."""
    from irconv_onnx.extractors.nn import conv_window, spatial_rank

    a = ctx.attrs
    x = _dequantize_port(ctx, ctx.input(0), ctx.input(1), ctx.input(2))
    w_scale = _along_axis(ctx, ctx.input(4), 3, 0)
    w = _dequantize_port(ctx, ctx.input(3), w_scale, _along_axis(ctx, ctx.input(5), 3, 0))
    spatial = spatial_rank(node, ctx, 3)
    y = convolution(ctx, x, w, conv_window(a, spatial), a.int("group", 1))
    if ctx.has_input(8):
        bias = ctx.op(Convert(destination_type=ElementType.f32), ctx.input(8), suffix="bias_f32")
        bias_scale = ctx.op(Multiply(), ctx.input(1), ctx.input(4), suffix="bias_scale")
        y = channel_bias(ctx, y, ctx.op(Multiply(), bias, bias_scale, suffix="bias_float"), spatial + 2)
    target = ctx.input(7).data.element_type
    return [_quantize_float(ctx, y, ctx.input(6), ctx.input(7), target)]


@extractor("onnx", "MatMulInteger", versions=(10, None), produces=[MatMul, Convert, Concat, Reshape, ShapeOf, Slice, Subtract])
@with_defaults(ZERO_POINTS)
def mat_mul_integer(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _int_product(False, node, ctx)


@extractor("onnx", "ConvInteger", versions=(10, None), produces=[*CONVOLUTION_OPS, Convert, Subtract, Reshape])
@with_defaults(ZERO_POINTS)
def conv_integer(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _int_product(True, node, ctx)
