"""Unary math and activations, Softmax/LogSoftmax/Hardmax, Clip, Cast, Identity, Dropout."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from irconv import ExtractContext
from irconv.frontend import const_like, extractor, f32, i64
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor
from irconv.types import ElementType
from irconv_opset.build import shape_of

from irconv_onnx.extractors._common import et_of_onnx, opset
from irconv_onnx.extractors._optional import HANDLED, WithDefaults, highest, lowest


def _simple(make: Callable[[], Op], node: Node, ctx: ExtractContext) -> Op:
    return make()


def _reciprocal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Divide

    return [ctx.op(Divide(), const_like(ctx, 1, ctx.input(0)), ctx.input(0))]


def _elu(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import Elu

    return Elu(alpha=ctx.attrs.float("alpha", 1.0))


def _selu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Selu

    a = ctx.attrs
    x = ctx.input(0)
    alpha = const_like(ctx, [a.float("alpha", 1.67326319217681884765625)], x, "alpha")
    gamma = const_like(ctx, [a.float("gamma", 1.05070102214813232421875)], x, "gamma")
    return [ctx.op(Selu(), x, alpha, gamma)]


def _hard_sigmoid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import HardSigmoid

    a = ctx.attrs
    x = ctx.input(0)
    alpha = const_like(ctx, a.float("alpha", 0.2), x, "alpha")
    beta = const_like(ctx, a.float("beta", 0.5), x, "beta")
    return [ctx.op(HardSigmoid(), x, alpha, beta)]


def _leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import PReLU

    x = ctx.input(0)
    slope = const_like(ctx, [ctx.attrs.float("alpha", 0.01)], x, "slope")
    return [ctx.op(PReLU(), x, slope)]


def _thresholded_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Greater, Select

    x = ctx.input(0)
    alpha = const_like(ctx, ctx.attrs.float("alpha", 1.0), x, "alpha")
    above = ctx.op(Greater(), x, alpha, suffix="above")
    return [ctx.op(Select(), above, x, const_like(ctx, 0, x, "zero"))]


def _shrink(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x < -lambd: x + bias; x > lambd: x - bias; else 0."""
    from irconv_opset import Add, Greater, Less, Select, Subtract

    a = ctx.attrs
    lambd, bias = a.float("lambd", 0.5), a.float("bias", 0.0)
    x = ctx.input(0)
    b = const_like(ctx, bias, x, "bias")
    low = ctx.op(Less(), x, const_like(ctx, -lambd, x, "low"), suffix="below")
    high = ctx.op(Greater(), x, const_like(ctx, lambd, x, "high"), suffix="above")
    inner = ctx.op(Select(), high, ctx.op(Subtract(), x, b, suffix="minus"), const_like(ctx, 0, x, "zero"),
                   suffix="upper")
    return [ctx.op(Select(), low, ctx.op(Add(), x, b, suffix="plus"), inner)]


def _gelu(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import Gelu

    mode = ctx.attrs.choice("approximate", ["none", "tanh"], "none")
    return Gelu(approximation_mode="erf" if mode == "none" else "tanh")


def _is_inf(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import IsInf

    a = ctx.attrs
    return IsInf(detect_negative=bool(a.int("detect_negative", 1)), detect_positive=bool(a.int("detect_positive", 1)))


def _round(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import Round

    return Round(mode="half_to_even")


def _clip_attributes(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Clip before opset 11: the bounds are attributes."""
    from irconv_opset import Clamp

    a = ctx.attrs
    op = Clamp(min=a.float("min", float(np.finfo(np.float32).min)), max=a.float("max", float(np.finfo(np.float32).max)))
    return [ctx.op(op, ctx.input(0))]


def _clip(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Clamp for constant float bounds; Maximum/Minimum otherwise. An empty bound is the
    type's lowest/highest value (declared defaults), which clips nothing."""
    from irconv_opset import Clamp, Maximum, Minimum

    x = ctx.input(0)
    low, high = ctx.input_value(1), ctx.input_value(2)
    et = ctx.input_type(0)
    if et.is_float and low is not None and high is not None and low.size == 1 and high.size == 1:
        return [ctx.op(Clamp(min=float(low.reshape(())), max=float(high.reshape(()))), x)]
    low_clipped = ctx.op(Maximum(), x, ctx.input(1), suffix="min")
    return [ctx.op(Minimum(), low_clipped, ctx.input(2), suffix="max")]


def _identity(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


def _has_element(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Optional values are plain tensors here: present unless the input name is empty."""
    return [ctx.const(np.array(ctx.has_input(0)), suffix="has_element")]


def _dropout(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inference: the data passes through; the mask is all true."""
    from irconv_opset import Broadcast

    x = ctx.input(0)
    if len(node.out_ports()) < 2:
        return [x]
    shape = shape_of(ctx, x)
    mask = ctx.op(Broadcast(), ctx.const(np.array(True)), shape, suffix="mask")
    return [x, mask]


def _cast(node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
    """Convert; to an 8-bit float with ONNX's ``saturate`` (opset 19, default 1) honoured."""
    from irconv_opset import Convert

    target = et_of_onnx(ctx.attrs.int("to"), f"Cast node {node.name!r}")
    if target.is_float8:
        from irconv_onnx.extractors.quantization import convert_to_float8

        return [convert_to_float8(ctx, ctx.input(0), target, ctx.attrs.int("saturate", 1) != 0)]
    return Convert(destination_type=target)


def _bit_cast(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Between integers of one width (bool counts as 8 bits) the bits read as the other
    type's value differ by 2**width at most: computed in i32, so up to 16 bits (the CPU
    plugin computes i64 in i32, which leaves no wider type for 32 bits). OpenVINO has no op
    that reinterprets bits, so the other casts are refused."""
    from irconv_opset import Add, Convert, GreaterEqual, Less, Select

    a = ctx.attrs
    x = ctx.input(0)
    source = x.data.element_type
    target = et_of_onnx(a.int("to"), f"BitCast node {node.name!r}")
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


def _cast_like(node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
    from irconv_opset import ConvertLike

    target = ctx.input(1).data.element_type
    if target.is_float8:
        from irconv_onnx.extractors.quantization import convert_to_float8

        saturate = ctx.attrs.int("saturate", 1) != 0
        return [convert_to_float8(ctx, ctx.input(0), target, saturate, like=ctx.input(1))]
    return ConvertLike()


def _softmax(log: bool, node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Opset 13: one axis. Before: the input is seen as 2-D, split at ``axis`` (default 1)."""
    from irconv_opset.lowering.softmax import flattened_softmax, softmax

    if opset(ctx) >= 13:
        return [softmax(ctx, ctx.input(0), ctx.attrs.int("axis", -1), log=log)]
    return [flattened_softmax(ctx, ctx.input(0), ctx.attrs.int("axis", 1), log=log)]


def _hardmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """One-hot of the (first) arg max along the axis."""
    from irconv_opset import ConvertLike, Gather, OneHot, ShapeOf, Squeeze, TopK

    a = ctx.attrs
    axis = a.int("axis", -1 if opset(ctx) >= 13 else 1)
    if opset(ctx) < 13 and axis != -1 and axis != (ctx.input_rank(0) or 0) - 1:
        raise a.bad("axis", axis, "Hardmax before opset 13 is supported on the last axis only")
    x = ctx.input(0)
    top = ctx.add(TopK(axis=axis, mode="max", sort="value", index_element_type=ElementType.i64, stable=True),
                  [x, i64(ctx, 1)], "argmax")
    index = ctx.op(Squeeze(), top.out_port(1), i64(ctx, [axis]), suffix="index")
    depth = ctx.op(Gather(), ctx.op(ShapeOf(), x), i64(ctx, axis),
                   i64(ctx, 0), suffix="depth")
    on, off = f32(ctx, 1), f32(ctx, 0)
    hot = ctx.op(OneHot(axis=axis), index, depth, on, off, suffix="onehot")
    return [ctx.op(ConvertLike(), hot, x)]


def extractors() -> list[Extractor]:
    import irconv_opset as o
    from irconv_opset.lowering.softmax import FLATTENED_SOFTMAX_OPS

    simple = {
        "Abs": o.Abs, "Neg": o.Negative, "Floor": o.Floor, "Ceil": o.Ceiling, "Sqrt": o.Sqrt,
        "Exp": o.Exp, "Log": o.Log, "Erf": o.Erf, "Sin": o.Sin, "Cos": o.Cos, "Tan": o.Tan,
        "Asin": o.Asin, "Acos": o.Acos, "Atan": o.Atan, "Sinh": o.Sinh, "Cosh": o.Cosh,
        "Asinh": o.Asinh, "Acosh": o.Acosh, "Atanh": o.Atanh, "Sign": o.Sign, "Relu": o.ReLU,
        "Sigmoid": o.Sigmoid, "Tanh": o.Tanh, "Softplus": o.SoftPlus, "Softsign": o.SoftSign,
        "HardSwish": o.HSwish, "Mish": o.Mish, "IsNaN": o.IsNaN, "Not": o.LogicalNot,
        "BitwiseNot": o.BitwiseNot,
    }
    result = [extractor("onnx", name, partial(_simple, cls), produces=[cls]) for name, cls in simple.items()]
    result += [
        extractor("onnx", "Reciprocal", _reciprocal, produces=[o.Divide]),
        extractor("onnx", "Elu", _elu, produces=[o.Elu]),
        extractor("onnx", "Selu", _selu, produces=[o.Selu]),
        extractor("onnx", "HardSigmoid", _hard_sigmoid, produces=[o.HardSigmoid]),
        extractor("onnx", "LeakyRelu", _leaky_relu, produces=[o.PReLU]),
        extractor("onnx", "ThresholdedRelu", _thresholded_relu, versions=(10, None), produces=[o.Select]),
        extractor("onnx", "Shrink", _shrink, versions=(9, None), produces=[o.Select]),
        extractor("onnx", "Gelu", _gelu, versions=(20, None), produces=[o.Gelu]),
        extractor("onnx", "IsInf", _is_inf, versions=(10, None), produces=[o.IsInf]),
        extractor("onnx", "Round", _round, versions=(11, None), produces=[o.Round]),
        extractor("onnx", "Clip", _clip_attributes, versions=(1, 10), produces=[o.Clamp]),
        extractor("onnx", "Clip", WithDefaults(_clip, {1: lowest(), 2: highest()}), versions=(11, None),
                  produces=[o.Clamp, o.Minimum, o.Maximum]),
        extractor("onnx", "Identity", _identity),
        extractor("onnx", "OptionalHasElement", WithDefaults(_has_element, {0: HANDLED}), versions=(15, None),
                  produces=[o.Const]),
        extractor("onnx", "OptionalGetElement", _identity, versions=(15, None)),
        extractor("onnx", "Optional", WithDefaults(_identity, {0: HANDLED}), versions=(15, None)),
        extractor("onnx", "Dropout", WithDefaults(_dropout, {1: HANDLED, 2: HANDLED})),
        extractor("onnx", "Cast", _cast, produces=[o.Convert]),
        extractor("onnx", "BitCast", _bit_cast, versions=(26, None), produces=[o.Convert, o.Select]),
        extractor("onnx", "CastLike", _cast_like, versions=(15, None), produces=[o.ConvertLike]),
        extractor("onnx", "Softmax", partial(_softmax, False), produces=[*FLATTENED_SOFTMAX_OPS]),
        extractor("onnx", "LogSoftmax", partial(_softmax, True), produces=[*FLATTENED_SOFTMAX_OPS]),
        extractor("onnx", "Hardmax", _hardmax, produces=[o.TopK, o.OneHot]),
    ]
    return result
