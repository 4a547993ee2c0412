"""Binary and variadic elementwise ops: arithmetic, comparison, logic, bitwise, Where."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from irconv import ExtractContext
from irconv.frontend import const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor
from irconv.types import ElementType

from irconv_onnx.extractors._common import opset


def _binary(make: Callable[[], Op], node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
    """Before opset 7, ``broadcast=1, axis=k`` aligns B with A starting at axis k."""
    a = ctx.attrs
    if a.int("broadcast", 0) and "axis" in a:
        from irconv_opset import Unsqueeze

        rank_a, rank_b = ctx.input_rank(0), ctx.input_rank(1)
        if rank_a is None or rank_b is None:
            raise a.bad("axis", a.int("axis"), "legacy axis broadcasting needs known input ranks")
        axis = a.int("axis") % rank_a
        trailing = rank_a - axis - rank_b
        b = ctx.input(1)
        if trailing > 0:
            b = ctx.op(Unsqueeze(), b, i64(ctx, np.arange(rank_b, rank_b + trailing)),
                       suffix="aligned")
        return [ctx.op(make(), ctx.input(0), b)]
    return make()


def _variadic(make: Callable[[], Op], node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = len(ctx.inputs)
    port = ctx.input(0)
    for i in range(1, count):
        port = ctx.op(make(), port, ctx.input(i), suffix=f"{make().type}_{i}")
    return [port]


def _mean(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Add, Divide

    count = len(ctx.inputs)
    (total,) = _variadic(Add, node, ctx)
    if count == 1:
        return [total]
    return [ctx.op(Divide(), total, const_like(ctx, count, ctx.input(0)), suffix="mean")]


def _div(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import Divide

    return Divide(m_pythondiv=False)  # ONNX integer division truncates


def _mod(node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
    """Mod (fmod=1, C's fmod) or FloorMod (fmod=0, Python's %). For floats the CPU plugin
    gives NaN for a finite x by an infinite y, where the answer is x (for fmod=0: x when it
    is 0 or has y's sign, else y), so those elements are chosen with a Select."""
    from irconv_opset import Equal, FloorMod, IsInf, IsNaN, Less, LogicalAnd, LogicalNot, LogicalOr, Mod, Select

    fmod = bool(ctx.attrs.int("fmod", 0))
    x, y = ctx.input(0), ctx.input(1)
    if not x.data.element_type.is_float or x.data.element_type.is_narrow_float:
        return Mod() if fmod else FloorMod()
    result = ctx.op(Mod() if fmod else FloorMod(), x, y, suffix="mod")
    finite_x = ctx.op(LogicalNot(), ctx.op(LogicalOr(), ctx.op(IsInf(), x, suffix="x_inf"),
                                           ctx.op(IsNaN(), x, suffix="x_nan"), suffix="x_not_finite"), suffix="x_finite")
    by_infinity = ctx.op(LogicalAnd(), finite_x, ctx.op(IsInf(), y, suffix="y_inf"), suffix="by_infinity")
    exact = x
    if not fmod:
        zero = const_like(ctx, 0, x, "zero")
        same_sign = ctx.op(Equal(), ctx.op(Less(), x, zero, suffix="x_negative"),
                           ctx.op(Less(), y, zero, suffix="y_negative"), suffix="same_sign")
        keeps_x = ctx.op(LogicalOr(), same_sign, ctx.op(Equal(), x, zero, suffix="x_zero"), suffix="keeps_x")
        exact = ctx.op(Select(), keeps_x, x, y, suffix="by_infinity_value")
    return [ctx.op(Select(), by_infinity, exact, result)]


def _bit_shift(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Shifts by a negative amount or by the width or more shift everything out: 0, or the sign
    fill for a right shift of a negative signed value."""
    from irconv_opset import (
        BitwiseLeftShift,
        BitwiseRightShift,
        GreaterEqual,
        Less,
        LogicalOr,
        Select,
    )

    direction = ctx.attrs.choice("direction", ["LEFT", "RIGHT"])
    x, shift = ctx.input(0), ctx.input(1)
    op = BitwiseLeftShift() if direction == "LEFT" else BitwiseRightShift()
    shifted = ctx.op(op, x, shift, suffix="shift")
    et = x.data.element_type
    if not et.is_integer:
        return [shifted]
    width = np.dtype(et.numpy).itemsize * 8
    too_far = ctx.op(GreaterEqual(), shift, const_like(ctx, width, shift, "width"), suffix="too_far")
    if et.value.startswith("i"):
        too_far = ctx.op(LogicalOr(), too_far, ctx.op(Less(), shift, const_like(ctx, 0, shift, "zero_shift"),
                                                      suffix="negative_shift"), suffix="out_of_range")
    zero = const_like(ctx, 0, x, "zero")
    fill = zero
    if direction == "RIGHT" and et.value.startswith("i"):
        fill = ctx.op(Select(), ctx.op(Less(), x, zero, suffix="negative"), const_like(ctx, -1, x, "minus_one"),
                      zero, suffix="sign_fill")
    return [ctx.op(Select(), too_far, fill, shifted)]


def _prelu(node: Node, ctx: ExtractContext) -> list[OutPort] | Op:
    """x < 0 ? x * slope : x, with ONNX's numpy broadcasting of the slope (per channel before opset 7)."""
    from irconv_opset import Less, Multiply, PReLU, Select

    if opset(ctx) < 7:
        return PReLU()
    x, slope = ctx.input(0), ctx.input(1)
    negative = ctx.op(Less(), x, const_like(ctx, 0, x), suffix="negative")
    scaled = ctx.op(Multiply(), x, slope, suffix="scaled")
    return [ctx.op(Select(), negative, scaled, x)]


def _pow(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ONNX allows an exponent of another type: convert it to the base's type."""
    from irconv_opset import Convert, Power

    base, exponent = ctx.input(0), ctx.input(1)
    et = base.data.element_type
    if et is not ElementType.dynamic and exponent.data.element_type is not et:
        exponent = ctx.op(Convert(destination_type=et), exponent, suffix="exponent")
    return [ctx.op(Power(), base, exponent)]


def _greater(or_equal: bool, node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
    """``a > b`` as ``b < a`` for floats: the CPU plugin's Greater and GreaterEqual are true
    when an operand is NaN (Less and LessEqual are not)."""
    from irconv_opset import Greater, GreaterEqual, Less, LessEqual

    if ctx.input_type(0).is_float and "broadcast" not in ctx.attrs:
        return [ctx.op(LessEqual() if or_equal else Less(), ctx.input(1), ctx.input(0))]
    return _binary(GreaterEqual if or_equal else Greater, node, ctx)


def _where(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import Select

    return Select()


def extractors() -> list[Extractor]:
    import irconv_opset as o

    simple = {
        "Add": o.Add, "Sub": o.Subtract, "Mul": o.Multiply,
        "Equal": o.Equal, "Less": o.Less, "LessOrEqual": o.LessEqual,
        "And": o.LogicalAnd, "Or": o.LogicalOr, "Xor": o.LogicalXor,
        "BitwiseAnd": o.BitwiseAnd, "BitwiseOr": o.BitwiseOr, "BitwiseXor": o.BitwiseXor,
    }
    result = [extractor("onnx", name, partial(_binary, cls), produces=[cls]) for name, cls in simple.items()]
    result += [
        extractor("onnx", "Greater", partial(_greater, False), produces=[o.Less, o.Greater]),
        extractor("onnx", "GreaterOrEqual", partial(_greater, True), produces=[o.LessEqual, o.GreaterEqual]),
        extractor("onnx", "Pow", _pow, produces=[o.Power]),
        extractor("onnx", "Div", _div, produces=[o.Divide]),
        extractor("onnx", "Mod", _mod, versions=(10, None), produces=[o.Mod, o.FloorMod, o.Select]),
        extractor("onnx", "BitShift", _bit_shift, versions=(11, None),
                  produces=[o.BitwiseLeftShift, o.BitwiseRightShift]),
        extractor("onnx", "Max", partial(_variadic, o.Maximum), produces=[o.Maximum]),
        extractor("onnx", "Min", partial(_variadic, o.Minimum), produces=[o.Minimum]),
        extractor("onnx", "Sum", partial(_variadic, o.Add), produces=[o.Add]),
        extractor("onnx", "Mean", _mean, produces=[o.Add, o.Divide]),
        extractor("onnx", "PRelu", _prelu, produces=[o.Select]),
        extractor("onnx", "Where", _where, versions=(9, None), produces=[o.Select]),
    ]
    return result
