"""Element-wise operators: arithmetic with fused activations, comparisons, logic, unary
functions and activations. TFLite broadcasts NumPy-style, as OpenVINO's ops do."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.frontend import const_like, extractor
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset import (
    Add,
    Clamp,
    Divide,
    Elu,
    Floor,
    Gelu,
    HSwish,
    Less,
    LogicalAnd,
    Mod,
    Multiply,
    NotEqual,
    PReLU,
    Round,
    Select,
    Sigmoid,
    Sqrt,
    Subtract,
)
from irconv_opset.lowering.elementwise import ADD_N_OPS, ATAN2_OPS, Binary, Unary
from irconv_opset.lowering.elementwise import add_n as sum_of
from irconv_opset.lowering.elementwise import atan2 as atan2_of

from irconv_tflite.extractors import integer, integer_tables
from irconv_tflite.extractors._common import fused_activation


def _fused_binary(make: Callable[[ExtractContext], Op]):  # type: ignore[no-untyped-def]
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        return [fused_activation(ctx, ctx.op(make(ctx), ctx.input(0), ctx.input(1), suffix="op"))]

    return extract


def _divide(ctx: ExtractContext) -> Divide:
    """DIV truncates integers (C division)."""
    return Divide(m_pythondiv=not ctx.input_type(0).is_integer)


def _integer_or(form: Callable[[ExtractContext], OutPort | None], fallback):  # type: ignore[no-untyped-def]
    """A full-integer operator's integer ``form`` (``extractors.integer``), else ``fallback``."""
    def extract(node: Node, ctx: ExtractContext) -> object:
        exact = form(ctx)
        return [exact] if exact is not None else fallback(node, ctx)

    return extract


add = extractor("tflite", "ADD", _integer_or(integer.add, _fused_binary(lambda ctx: Add())),
                produces=[Add, *integer.INTEGER_OPS])
sub = extractor("tflite", "SUB", _fused_binary(lambda ctx: Subtract()), produces=[Subtract])
mul = extractor("tflite", "MUL", _integer_or(integer.multiply, _fused_binary(lambda ctx: Multiply())),
                produces=[Multiply, *integer.INTEGER_OPS])
div = extractor("tflite", "DIV", _fused_binary(_divide), produces=[Divide])

#: Operators that are one attribute-free opset op.
_PLAIN: dict[str, Unary | Binary] = {
    "MAXIMUM": Binary.MAXIMUM,
    "MINIMUM": Binary.MINIMUM,
    "POW": Binary.POWER,
    "SQUARED_DIFFERENCE": Binary.SQUARED_DIFFERENCE,
    "FLOOR_MOD": Binary.FLOOR_MOD,
    "EQUAL": Binary.EQUAL,
    "NOT_EQUAL": Binary.NOT_EQUAL,
    "LESS": Binary.LESS,
    "LESS_EQUAL": Binary.LESS_EQUAL,
    "GREATER": Binary.GREATER,
    "GREATER_EQUAL": Binary.GREATER_EQUAL,
    "LOGICAL_AND": Binary.LOGICAL_AND,
    "LOGICAL_OR": Binary.LOGICAL_OR,
    "BITWISE_XOR": Binary.BITWISE_XOR,
    "RIGHT_SHIFT": Binary.BITWISE_RIGHT_SHIFT,
    "LOGICAL_NOT": Unary.LOGICAL_NOT,
    "ABS": Unary.ABS,
    "NEG": Unary.NEGATIVE,
    "EXP": Unary.EXP,
    "LOG": Unary.LOG,
    "SQRT": Unary.SQRT,
    "SIN": Unary.SIN,
    "COS": Unary.COS,
    "FLOOR": Unary.FLOOR,
    "CEIL": Unary.CEILING,
    "SIGN": Unary.SIGN,
    "TANH": Unary.TANH,
    "RELU": Unary.RELU,
}
plain = [extractor("tflite", name, lambda node, ctx, kind=kind: kind.make(), produces=[kind.op])
         for name, kind in _PLAIN.items()]
select = extractor("tflite", "SELECT", lambda node, ctx: Select(), produces=[Select])
select_v2 = extractor("tflite", "SELECT_V2", lambda node, ctx: Select(), produces=[Select])


@extractor("tflite", "FLOOR_DIV", produces=[Divide, Floor, Mod, NotEqual, Less, LogicalAnd, Subtract, Select])
def floor_div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Floats: floor(x / y). Integers: the truncated quotient less one where the division
    leaves a remainder and the signs differ (OpenVINO 2026.4's CPU plugin truncates an
    integer Divide even with ``m_pythondiv``)."""
    x, y = ctx.input(0), ctx.input(1)
    quotient = ctx.op(Divide(m_pythondiv=False), x, y, suffix="div")
    if not ctx.input_type(0).is_integer:
        return [ctx.op(Floor(), quotient, suffix="floor")]
    zero = const_like(ctx, 0, x, suffix="zero")
    inexact = ctx.op(NotEqual(), ctx.op(Mod(), x, y, suffix="remainder"), zero, suffix="inexact")
    signs_differ = ctx.op(NotEqual(), ctx.op(Less(), x, zero, suffix="x_negative"),
                          ctx.op(Less(), y, zero, suffix="y_negative"), suffix="signs_differ")
    lower = ctx.op(Subtract(), quotient, const_like(ctx, 1, x, suffix="one"), suffix="lower")
    return [ctx.op(Select(), ctx.op(LogicalAnd(), inexact, signs_differ, suffix="round_down"), lower, quotient,
                   suffix="floor_div")]


@extractor("tflite", "ADD_N", produces=ADD_N_OPS)
def add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [sum_of(ctx, [ctx.input(idx) for idx in range(len(ctx.inputs))])]


round_ = extractor("tflite", "ROUND", lambda node, ctx: Round(mode="half_to_even"), produces=[Round])
logistic = extractor("tflite", "LOGISTIC", _integer_or(lambda ctx: integer.table(ctx, integer_tables.sigmoid),
                                                      lambda node, ctx: Sigmoid()),
                     produces=[Sigmoid, *integer.INTEGER_OPS])
relu6 = extractor("tflite", "RELU6", lambda node, ctx: Clamp(min=0.0, max=6.0), produces=[Clamp])
relu_n1_to_1 = extractor("tflite", "RELU_N1_TO_1", lambda node, ctx: Clamp(min=-1.0, max=1.0), produces=[Clamp])
relu_0_to_1 = extractor("tflite", "RELU_0_TO_1", lambda node, ctx: Clamp(min=0.0, max=1.0), produces=[Clamp])
hard_swish = extractor("tflite", "HARD_SWISH", _integer_or(lambda ctx: integer.table(ctx, integer_tables.hard_swish),
                                                          lambda node, ctx: HSwish()),
                       produces=[HSwish, *integer.INTEGER_OPS])
elu = extractor("tflite", "ELU", lambda node, ctx: Elu(alpha=1.0), produces=[Elu])
prelu = extractor("tflite", "PRELU", lambda node, ctx: PReLU(), produces=[PReLU])


@extractor("tflite", "GELU", produces=[Gelu])
def gelu(node: Node, ctx: ExtractContext) -> Gelu:
    return Gelu(approximation_mode="tanh" if ctx.attrs.bool("approximate", False) else "erf")


@extractor("tflite", "RSQRT", produces=[Sqrt, Divide])
def rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    root = ctx.op(Sqrt(), ctx.input(0), suffix="sqrt")
    return [ctx.op(Divide(), const_like(ctx, 1, root, suffix="one"), root, suffix="rsqrt")]


@extractor("tflite", "SQUARE", produces=[Multiply])
def square(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Multiply(), ctx.input(0), ctx.input(0), suffix="square")]


@extractor("tflite", "LEAKY_RELU", produces=[PReLU])
def leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    alpha = ctx.const(np.float32(ctx.attrs.float("alpha", 0.2)).reshape(1), suffix="alpha")
    return [ctx.op(PReLU(), ctx.input(0), alpha, suffix="leaky_relu")]




@extractor("tflite", "ATAN2", produces=ATAN2_OPS)
def atan2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [atan2_of(ctx, ctx.input(0), ctx.input(1), suffix="atan2")]
