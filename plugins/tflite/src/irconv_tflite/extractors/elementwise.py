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
    Abs,
    Add,
    Atan,
    BitwiseRightShift,
    BitwiseXor,
    Ceiling,
    Clamp,
    Cos,
    Divide,
    Elu,
    Equal,
    Exp,
    Floor,
    FloorMod,
    Gelu,
    Greater,
    GreaterEqual,
    HSwish,
    Less,
    LessEqual,
    Log,
    LogicalAnd,
    LogicalNot,
    LogicalOr,
    Maximum,
    Minimum,
    Mod,
    Multiply,
    Negative,
    NotEqual,
    Power,
    PReLU,
    ReLU,
    Round,
    Select,
    Sigmoid,
    Sign,
    Sin,
    Sqrt,
    SquaredDifference,
    Subtract,
    Tanh,
)

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

maximum = extractor("tflite", "MAXIMUM", lambda node, ctx: Maximum(), produces=[Maximum])
minimum = extractor("tflite", "MINIMUM", lambda node, ctx: Minimum(), produces=[Minimum])
pow_ = extractor("tflite", "POW", lambda node, ctx: Power(), produces=[Power])
squared_difference = extractor("tflite", "SQUARED_DIFFERENCE", lambda node, ctx: SquaredDifference(), produces=[SquaredDifference])
floor_mod = extractor("tflite", "FLOOR_MOD", lambda node, ctx: FloorMod(), produces=[FloorMod])
equal = extractor("tflite", "EQUAL", lambda node, ctx: Equal(), produces=[Equal])
not_equal = extractor("tflite", "NOT_EQUAL", lambda node, ctx: NotEqual(), produces=[NotEqual])
less = extractor("tflite", "LESS", lambda node, ctx: Less(), produces=[Less])
less_equal = extractor("tflite", "LESS_EQUAL", lambda node, ctx: LessEqual(), produces=[LessEqual])
greater = extractor("tflite", "GREATER", lambda node, ctx: Greater(), produces=[Greater])
greater_equal = extractor("tflite", "GREATER_EQUAL", lambda node, ctx: GreaterEqual(), produces=[GreaterEqual])
logical_and = extractor("tflite", "LOGICAL_AND", lambda node, ctx: LogicalAnd(), produces=[LogicalAnd])
logical_or = extractor("tflite", "LOGICAL_OR", lambda node, ctx: LogicalOr(), produces=[LogicalOr])
logical_not = extractor("tflite", "LOGICAL_NOT", lambda node, ctx: LogicalNot(), produces=[LogicalNot])
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


@extractor("tflite", "ADD_N", produces=[Add])
def add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    total = ctx.input(0)
    for idx in range(1, len(ctx.inputs)):
        total = ctx.op(Add(), total, ctx.input(idx), suffix=f"add{idx}")
    return [total]


abs_ = extractor("tflite", "ABS", lambda node, ctx: Abs(), produces=[Abs])
neg = extractor("tflite", "NEG", lambda node, ctx: Negative(), produces=[Negative])
exp = extractor("tflite", "EXP", lambda node, ctx: Exp(), produces=[Exp])
log = extractor("tflite", "LOG", lambda node, ctx: Log(), produces=[Log])
sqrt = extractor("tflite", "SQRT", lambda node, ctx: Sqrt(), produces=[Sqrt])
sin = extractor("tflite", "SIN", lambda node, ctx: Sin(), produces=[Sin])
cos = extractor("tflite", "COS", lambda node, ctx: Cos(), produces=[Cos])
floor = extractor("tflite", "FLOOR", lambda node, ctx: Floor(), produces=[Floor])
ceil = extractor("tflite", "CEIL", lambda node, ctx: Ceiling(), produces=[Ceiling])
round_ = extractor("tflite", "ROUND", lambda node, ctx: Round(mode="half_to_even"), produces=[Round])
sign = extractor("tflite", "SIGN", lambda node, ctx: Sign(), produces=[Sign])
logistic = extractor("tflite", "LOGISTIC", _integer_or(lambda ctx: integer.table(ctx, integer_tables.sigmoid),
                                                      lambda node, ctx: Sigmoid()),
                     produces=[Sigmoid, *integer.INTEGER_OPS])
tanh = extractor("tflite", "TANH", lambda node, ctx: Tanh(), produces=[Tanh])
relu = extractor("tflite", "RELU", lambda node, ctx: ReLU(), produces=[ReLU])
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


bitwise_xor = extractor("tflite", "BITWISE_XOR", lambda node, ctx: BitwiseXor(), produces=[BitwiseXor])
right_shift = extractor("tflite", "RIGHT_SHIFT", lambda node, ctx: BitwiseRightShift(), produces=[BitwiseRightShift])


@extractor("tflite", "ATAN2", produces=[Atan, Divide, Equal, Less, Select, Add, Multiply, Sign])
def atan2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """atan2(y, x): atan(y / x), turned by pi toward y's side where x < 0; sign(y) * pi / 2
    where x == 0 (0 at the origin)."""
    y, x = ctx.input(0), ctx.input(1)

    def c(value: float, suffix: str) -> OutPort:
        return const_like(ctx, value, x, suffix)

    x_is_zero = ctx.op(Equal(), x, c(0.0, "zero"), suffix="x_is_zero")
    safe_x = ctx.op(Select(), x_is_zero, c(1.0, "one"), x, suffix="safe_x")
    angle = ctx.op(Atan(), ctx.op(Divide(m_pythondiv=False), y, safe_x, suffix="ratio"), suffix="atan")
    y_negative = ctx.op(Less(), y, c(0.0, "y_zero"), suffix="y_negative")
    half_turn = ctx.op(Select(), y_negative, c(-np.pi, "minus_pi"), c(np.pi, "pi"), suffix="half_turn")
    x_negative = ctx.op(Less(), x, c(0.0, "x_zero"), suffix="x_negative")
    turned = ctx.op(Select(), x_negative, ctx.op(Add(), angle, half_turn, suffix="turned"), angle, suffix="quadrant")
    on_axis = ctx.op(Multiply(), ctx.op(Sign(), y, suffix="y_sign"), c(np.pi / 2, "half_pi"), suffix="on_axis")
    return [ctx.op(Select(), x_is_zero, on_axis, turned, suffix="atan2")]
