"""Unary math and activations, Softmax/LogSoftmax/Hardmax, Clip, Cast, Identity, Dropout."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import quoted
from irconv.frontend import aliases, const_like, extractor, f32, i64
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Acos,
    Acosh,
    Add,
    Asin,
    Asinh,
    Atan,
    Atanh,
    BitwiseNot,
    Broadcast,
    Ceiling,
    Clamp,
    Const,
    Convert,
    ConvertLike,
    Cos,
    Cosh,
    Divide,
    Elu,
    Erf,
    Exp,
    Floor,
    Gather,
    Gelu,
    Greater,
    GreaterEqual,
    HardSigmoid,
    HSwish,
    IsInf,
    IsNaN,
    Less,
    Log,
    LogicalNot,
    LogSoftmax,
    Maximum,
    Minimum,
    Mish,
    Negative,
    OneHot,
    PReLU,
    ReLU,
    Round,
    Select,
    Selu,
    ShapeOf,
    Sigmoid,
    Sign,
    Sin,
    Sinh,
    SoftMax,
    SoftPlus,
    SoftSign,
    Sqrt,
    Squeeze,
    Subtract,
    Tan,
    Tanh,
    TopK,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.softmax import FLATTENED_SOFTMAX_OPS, flattened_softmax, softmax

from irconv_onnx.extractors._common import et_of_onnx
from irconv_onnx.extractors._optional import HANDLED, highest, lowest, with_defaults
from irconv_onnx.extractors.quantization import FLOAT8_OPS, convert_to_float8

#: ONNX ops that are one opset op on one input.
UNARY: dict[str, type[Op]] = {
    "Abs": Abs, "Neg": Negative, "Floor": Floor, "Ceil": Ceiling, "Sqrt": Sqrt,
    "Exp": Exp, "Log": Log, "Erf": Erf, "Sin": Sin, "Cos": Cos, "Tan": Tan,
    "Asin": Asin, "Acos": Acos, "Atan": Atan, "Sinh": Sinh, "Cosh": Cosh,
    "Asinh": Asinh, "Acosh": Acosh, "Atanh": Atanh, "Sign": Sign, "Relu": ReLU,
    "Sigmoid": Sigmoid, "Tanh": Tanh, "Softplus": SoftPlus, "Softsign": SoftSign,
    "HardSwish": HSwish, "Mish": Mish, "IsNaN": IsNaN, "Not": LogicalNot,
    "BitwiseNot": BitwiseNot,
}


def unary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(UNARY[ctx.source_op.op_type](), ctx.input(0))]


UNARY_RECORDS = [record for name, made in UNARY.items() for record in aliases("onnx", [name], unary, produces=[made])]


@extractor("onnx", "Reciprocal", produces=[Divide])
def _reciprocal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Divide(), const_like(ctx, 1, ctx.input(0)), ctx.input(0))]


@extractor("onnx", "Elu", produces=[Elu])
def _elu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Elu(alpha=ctx.attrs.float("alpha", 1.0)), ctx.input(0))]


@extractor("onnx", "Selu", produces=[Selu])
def _selu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    x = ctx.input(0)
    alpha = const_like(ctx, [a.float("alpha", 1.67326319217681884765625)], x, "alpha")
    gamma = const_like(ctx, [a.float("gamma", 1.05070102214813232421875)], x, "gamma")
    return [ctx.op(Selu(), x, alpha, gamma)]


@extractor("onnx", "HardSigmoid", produces=[HardSigmoid])
def _hard_sigmoid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    x = ctx.input(0)
    alpha = const_like(ctx, a.float("alpha", 0.2), x, "alpha")
    beta = const_like(ctx, a.float("beta", 0.5), x, "beta")
    return [ctx.op(HardSigmoid(), x, alpha, beta)]


@extractor("onnx", "LeakyRelu", produces=[PReLU])
def _leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    slope = const_like(ctx, [ctx.attrs.float("alpha", 0.01)], x, "slope")
    return [ctx.op(PReLU(), x, slope)]


@extractor("onnx", "ThresholdedRelu", versions=(10, None), produces=[Greater, Select])
def _thresholded_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    alpha = const_like(ctx, ctx.attrs.float("alpha", 1.0), x, "alpha")
    above = ctx.op(Greater(), x, alpha, suffix="above")
    return [ctx.op(Select(), above, x, const_like(ctx, 0, x, "zero"))]


@extractor("onnx", "Shrink", versions=(9, None), produces=[Less, Greater, Subtract, Add, Select])
def _shrink(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x < -lambd: x + bias; x > lambd: x - bias; else 0."""
    a = ctx.attrs
    lambd, bias = a.float("lambd", 0.5), a.float("bias", 0.0)
    x = ctx.input(0)
    b = const_like(ctx, bias, x, "bias")
    low = ctx.op(Less(), x, const_like(ctx, -lambd, x, "low"), suffix="below")
    high = ctx.op(Greater(), x, const_like(ctx, lambd, x, "high"), suffix="above")
    inner = ctx.op(Select(), high, ctx.op(Subtract(), x, b, suffix="minus"), const_like(ctx, 0, x, "zero"),
                   suffix="upper")
    return [ctx.op(Select(), low, ctx.op(Add(), x, b, suffix="plus"), inner)]


@extractor("onnx", "Gelu", versions=(20, None), produces=[Gelu])
def _gelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    mode = ctx.attrs.choice("approximate", ["none", "tanh"], "none")
    return [ctx.op(Gelu(approximation_mode="erf" if mode == "none" else "tanh"), ctx.input(0))]


@extractor("onnx", "IsInf", versions=(10, None), produces=[IsInf])
def _is_inf(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    op = IsInf(detect_negative=bool(a.int("detect_negative", 1)), detect_positive=bool(a.int("detect_positive", 1)))
    return [ctx.op(op, ctx.input(0))]


@extractor("onnx", "Round", versions=(11, None), produces=[Round])
def _round(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Round(mode="half_to_even"), ctx.input(0))]


@extractor("onnx", "Clip", versions=(1, 10), produces=[Clamp])
def _clip_attributes(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Clip before opset 11: the bounds are attributes."""
    a = ctx.attrs
    op = Clamp(min=a.float("min", float(np.finfo(np.float32).min)), max=a.float("max", float(np.finfo(np.float32).max)))
    return [ctx.op(op, ctx.input(0))]


@extractor("onnx", "Clip", versions=(11, None), produces=[Clamp, Minimum, Maximum])
@with_defaults({1: lowest(), 2: highest()})
def _clip(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Clamp for constant float bounds; Maximum/Minimum otherwise. An empty bound is the
    type's lowest/highest value (declared defaults), which clips nothing."""
    x = ctx.input(0)
    low, high = ctx.input_value(1), ctx.input_value(2)
    et = ctx.input_type(0)
    if et.is_float and low is not None and high is not None and low.size == 1 and high.size == 1:
        return [ctx.op(Clamp(min=float(low.reshape(())), max=float(high.reshape(()))), x)]
    low_clipped = ctx.op(Maximum(), x, ctx.input(1), suffix="min")
    return [ctx.op(Minimum(), low_clipped, ctx.input(2), suffix="max")]


@extractor("onnx", "Identity")
def _identity(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


@extractor("onnx", "OptionalGetElement", versions=(15, None))
def optional_get_element(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Optional values are plain tensors here."""
    return [ctx.input(0)]


@extractor("onnx", "Optional", versions=(15, None))
@with_defaults({0: HANDLED})
def optional(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


@extractor("onnx", "OptionalHasElement", versions=(15, None), produces=[Const])
@with_defaults({0: HANDLED})
def _has_element(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Optional values are plain tensors here: present unless the input name is empty."""
    return [ctx.const(np.array(ctx.has_input(0)), suffix="has_element")]


@extractor("onnx", "Dropout", produces=[Broadcast, ShapeOf])
@with_defaults({1: HANDLED, 2: HANDLED})
def _dropout(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inference: the data passes through; the mask is all true."""
    x = ctx.input(0)
    if len(node.out_ports()) < 2:
        return [x]
    shape = shape_of(ctx, x)
    mask = ctx.op(Broadcast(), ctx.const(np.array(True)), shape, suffix="mask")
    return [x, mask]


@extractor("onnx", "Cast", produces=[Convert, *FLOAT8_OPS])
def _cast(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Convert; to an 8-bit float with ONNX's ``saturate`` (opset 19, default 1) honoured."""
    target = et_of_onnx(ctx.attrs.int("to"), f"Cast node {quoted(node.name)}")
    if target.is_float8:
        return [convert_to_float8(ctx, ctx.input(0), target, ctx.attrs.int("saturate", 1) != 0)]
    return [ctx.op(Convert(destination_type=target), ctx.input(0))]


@extractor("onnx", "BitCast", versions=(26, None), produces=[Convert, Select, Less, Add, GreaterEqual])
def _bit_cast(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Between integers of one width (bool counts as 8 bits) the bits read as the other
    type's value differ by 2**width at most: computed in i32, so up to 16 bits (the CPU
    plugin computes i64 in i32, which leaves no wider type for 32 bits). OpenVINO has no op
    that reinterprets bits, so the other casts are refused."""
    a = ctx.attrs
    x = ctx.input(0)
    source = x.data.element_type
    target = et_of_onnx(a.int("to"), f"BitCast node {quoted(node.name)}")
    width = {ElementType.boolean: 8}

    def bits(et: ElementType) -> int:
        return width.get(et, np.dtype(et.numpy).itemsize * 8 if et.is_integer else 0)

    if not bits(source) or bits(source) != bits(target) or bits(source) > 16 or target is ElementType.boolean:
        raise a.bad("to", target.value, f"OpenVINO has no op that reinterprets bits (from {source.value}); irconv bit-casts "
                    "between integer types up to 16 bits")
    wide = ctx.op(Convert(destination_type=ElementType.i32), x, suffix="wide")
    span = const_like(ctx, 1 << bits(source), wide, "span")
    if source is not ElementType.boolean and np.dtype(source.numpy).kind == "i" and np.dtype(target.numpy).kind == "u":
        wide = ctx.op(Select(), ctx.op(Less(), wide, const_like(ctx, 0, wide, "zero"), suffix="negative"),
                      ctx.op(Add(), wide, span, suffix="wrapped"), wide, suffix="unsigned")
    elif np.dtype(source.numpy).kind == "u" and np.dtype(target.numpy).kind == "i":
        # GreaterEqual on integers only (the CPU plugin's float GreaterEqual is true for NaN)
        high = ctx.op(GreaterEqual(), wide, const_like(ctx, 1 << (bits(source) - 1), wide, "half"), suffix="high")
        wide = ctx.op(Select(), high, ctx.op(Add(), wide, const_like(ctx, -(1 << bits(source)), wide, "minus_span"),
                                             suffix="wrapped"), wide, suffix="signed")
    return [ctx.op(Convert(destination_type=target), wide)]


@extractor("onnx", "CastLike", versions=(15, None), produces=[ConvertLike, *FLOAT8_OPS])
def _cast_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    target = ctx.input(1).data.element_type
    if target.is_float8:
        saturate = ctx.attrs.int("saturate", 1) != 0
        return [convert_to_float8(ctx, ctx.input(0), target, saturate, like=ctx.input(1))]
    return [ctx.op(ConvertLike(), ctx.input(0), ctx.input(1))]


@extractor("onnx", "Softmax", versions=(1, 12), produces=[*FLATTENED_SOFTMAX_OPS])
def softmax_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Before opset 13 the input is seen as 2-D, split at ``axis`` (default 1)."""
    return [flattened_softmax(ctx, ctx.input(0), ctx.attrs.int("axis", 1))]


@extractor("onnx", "Softmax", versions=(13, None), produces=[SoftMax])
def softmax_v13(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [softmax(ctx, ctx.input(0), ctx.attrs.int("axis", -1))]


@extractor("onnx", "LogSoftmax", versions=(1, 12), produces=[*FLATTENED_SOFTMAX_OPS])
def log_softmax_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [flattened_softmax(ctx, ctx.input(0), ctx.attrs.int("axis", 1), log=True)]


@extractor("onnx", "LogSoftmax", versions=(13, None), produces=[LogSoftmax])
def log_softmax_v13(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [softmax(ctx, ctx.input(0), ctx.attrs.int("axis", -1), log=True)]


HARDMAX_OPS = (TopK, Squeeze, ShapeOf, Gather, OneHot, ConvertLike)


@extractor("onnx", "Hardmax", versions=(1, 12), produces=HARDMAX_OPS)
def hardmax_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Before opset 13 the input is seen as 2-D, split at ``axis`` (default 1): the last axis only here."""
    a = ctx.attrs
    axis = a.int("axis", 1)
    if axis != -1 and axis != (ctx.input_rank(0) or 0) - 1:
        raise a.bad("axis", axis, "Hardmax before opset 13 is supported on the last axis only")
    return [_hardmax(ctx, axis)]


@extractor("onnx", "Hardmax", versions=(13, None), produces=HARDMAX_OPS)
def hardmax_v13(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_hardmax(ctx, ctx.attrs.int("axis", -1))]


def _hardmax(ctx: ExtractContext, axis: int) -> OutPort:
    """One-hot of the (first) arg max along the axis."""
    x = ctx.input(0)
    top = ctx.add(TopK(axis=axis, mode="max", sort="value", index_element_type=ElementType.i64, stable=True),
                  [x, i64(ctx, 1)], "argmax")
    index = ctx.op(Squeeze(), top.out_port(1), i64(ctx, [axis]), suffix="index")
    depth = ctx.op(Gather(), ctx.op(ShapeOf(), x), i64(ctx, axis),
                   i64(ctx, 0), suffix="depth")
    on, off = f32(ctx, 1), f32(ctx, 0)
    hot = ctx.op(OneHot(axis=axis), index, depth, on, off, suffix="onehot")
    return ctx.op(ConvertLike(), hot, x)
