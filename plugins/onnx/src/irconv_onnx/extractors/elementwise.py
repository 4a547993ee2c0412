"""Binary and variadic elementwise ops: arithmetic, comparison, logic, bitwise, Where."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    Convert,
    Divide,
    Equal,
    FloorMod,
    Greater,
    GreaterEqual,
    IsInf,
    IsNaN,
    Less,
    LessEqual,
    LogicalAnd,
    LogicalNot,
    LogicalOr,
    LogicalXor,
    Maximum,
    Minimum,
    Mod,
    Multiply,
    Power,
    PReLU,
    Select,
    Subtract,
    Unsqueeze,
)
from irconv_opset.lowering.elementwise import BIT_SHIFT_OPS, bit_shift

#: ONNX ops that are one opset op on two inputs.
BINARY: dict[str, type[Op]] = {
    "Add": Add, "Sub": Subtract, "Mul": Multiply,
    "Equal": Equal, "Less": Less, "LessOrEqual": LessEqual,
    "And": LogicalAnd, "Or": LogicalOr, "Xor": LogicalXor,
    "BitwiseAnd": BitwiseAnd, "BitwiseOr": BitwiseOr, "BitwiseXor": BitwiseXor,
}


def binary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _binary(BINARY[ctx.source_op.op_type], ctx)


BINARY_RECORDS = [record for name, made in BINARY.items()
                  for record in aliases("onnx", [name], binary, produces=[made, Unsqueeze])]


def _binary(make: Callable[[], Op], ctx: ExtractContext) -> list[OutPort]:
    """Before opset 7, ``broadcast=1, axis=k`` aligns B with A starting at axis k."""
    a = ctx.attrs
    b = ctx.input(1)
    if a.int("broadcast", 0) and "axis" in a:
        rank_a, rank_b = ctx.input_rank(0), ctx.input_rank(1)
        if rank_a is None or rank_b is None:
            raise a.bad("axis", a.int("axis"), "legacy axis broadcasting needs known input ranks")
        axis = a.int("axis") % rank_a
        trailing = rank_a - axis - rank_b
        if trailing > 0:
            b = ctx.op(Unsqueeze(), b, i64(ctx, np.arange(rank_b, rank_b + trailing)),
                       suffix="aligned")
    return [ctx.op(make(), ctx.input(0), b)]


def _variadic(make: Callable[[], Op], ctx: ExtractContext) -> list[OutPort]:
    count = len(ctx.inputs)
    port = ctx.input(0)
    for i in range(1, count):
        port = ctx.op(make(), port, ctx.input(i), suffix=f"{make().type}_{i}")
    return [port]


@extractor("onnx", "Max", produces=[Maximum])
def maximum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _variadic(Maximum, ctx)


@extractor("onnx", "Min", produces=[Minimum])
def minimum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _variadic(Minimum, ctx)


@extractor("onnx", "Sum", produces=[Add])
def sum_op(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _variadic(Add, ctx)


@extractor("onnx", "Mean", produces=[Add, Divide])
def _mean(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = len(ctx.inputs)
    (total,) = _variadic(Add, ctx)
    if count == 1:
        return [total]
    return [ctx.op(Divide(), total, const_like(ctx, count, ctx.input(0)), suffix="mean")]


@extractor("onnx", "Div", produces=[Divide])
def _div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Divide(m_pythondiv=False), ctx.input(0), ctx.input(1))]  # ONNX integer division truncates


@extractor("onnx", "Mod", versions=(10, None),
           produces=[Mod, FloorMod, Select, LogicalNot, LogicalOr, LogicalAnd, IsInf, IsNaN, Equal, Less])
def _mod(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Mod (fmod=1, C's fmod) or FloorMod (fmod=0, Python's %). For floats the CPU plugin
    gives NaN for a finite x by an infinite y, where the answer is x (for fmod=0: x when it
    is 0 or has y's sign, else y), so those elements are chosen with a Select."""
    fmod = bool(ctx.attrs.int("fmod", 0))
    x, y = ctx.input(0), ctx.input(1)
    if not x.data.element_type.is_float or x.data.element_type.is_narrow_float:
        return [ctx.op(Mod() if fmod else FloorMod(), x, y)]
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


@extractor("onnx", "BitShift", versions=(11, None), produces=BIT_SHIFT_OPS)
def _bit_shift(node: Node, ctx: ExtractContext) -> list[OutPort]:
    direction = ctx.attrs.choice("direction", ["LEFT", "RIGHT"])
    return [bit_shift(ctx, ctx.input(0), ctx.input(1), left=direction == "LEFT")]


@extractor("onnx", "PRelu", versions=(1, 6), produces=[PReLU])
def prelu_per_channel(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The slope per channel before opset 7."""
    return [ctx.op(PReLU(), ctx.input(0), ctx.input(1))]


@extractor("onnx", "PRelu", versions=(7, None), produces=[Less, Multiply, Select])
def _prelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x < 0 ? x * slope : x, with ONNX's numpy broadcasting of the slope."""
    x, slope = ctx.input(0), ctx.input(1)
    negative = ctx.op(Less(), x, const_like(ctx, 0, x), suffix="negative")
    scaled = ctx.op(Multiply(), x, slope, suffix="scaled")
    return [ctx.op(Select(), negative, scaled, x)]


@extractor("onnx", "Pow", produces=[Convert, Power])
def _pow(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ONNX allows an exponent of another type: convert it to the base's type."""
    base, exponent = ctx.input(0), ctx.input(1)
    et = base.data.element_type
    if et is not ElementType.dynamic and exponent.data.element_type is not et:
        exponent = ctx.op(Convert(destination_type=et), exponent, suffix="exponent")
    return [ctx.op(Power(), base, exponent)]


def _greater(or_equal: bool, ctx: ExtractContext) -> list[OutPort]:
    """``a > b`` as ``b < a`` for floats: the CPU plugin's Greater and GreaterEqual are true
    when an operand is NaN (Less and LessEqual are not)."""
    if ctx.input_type(0).is_float and "broadcast" not in ctx.attrs:
        return [ctx.op(LessEqual() if or_equal else Less(), ctx.input(1), ctx.input(0))]
    return _binary(GreaterEqual if or_equal else Greater, ctx)


@extractor("onnx", "Greater", produces=[Less, Greater, Unsqueeze])
def greater(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _greater(False, ctx)


@extractor("onnx", "GreaterOrEqual", produces=[LessEqual, GreaterEqual, Unsqueeze])
def greater_or_equal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _greater(True, ctx)


@extractor("onnx", "Where", versions=(9, None), produces=[Select])
def _where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Select(), ctx.input(0), ctx.input(1), ctx.input(2))]
