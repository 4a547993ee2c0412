"""Element-wise lowerings every front end shares: the opset's attribute-free unary and
binary ops named by what they compute, a sum of many tensors, and atan2.

A front end maps its own op names onto :class:`Unary` / :class:`Binary` members instead of
importing each opset class again; the members' ``value`` is the opset class, so an
extractor's ``produces`` names exactly what it builds.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from irconv.frontend import const_like
from irconv.ops import Op

from irconv_opset import (
    Abs,
    Acos,
    Acosh,
    Add,
    Asin,
    Asinh,
    Atan,
    Atanh,
    BitwiseAnd,
    BitwiseLeftShift,
    BitwiseNot,
    BitwiseOr,
    BitwiseRightShift,
    BitwiseXor,
    Ceiling,
    Cos,
    Cosh,
    Divide,
    Equal,
    Erf,
    Exp,
    Floor,
    FloorMod,
    Greater,
    GreaterEqual,
    HSigmoid,
    HSwish,
    IsFinite,
    IsInf,
    IsNaN,
    Less,
    LessEqual,
    Log,
    LogicalAnd,
    LogicalNot,
    LogicalOr,
    LogicalXor,
    Maximum,
    Minimum,
    Mish,
    Mod,
    Multiply,
    Negative,
    NotEqual,
    Power,
    ReLU,
    Select,
    Sigmoid,
    Sign,
    Sin,
    Sinh,
    SoftPlus,
    SoftSign,
    Sqrt,
    SquaredDifference,
    Subtract,
    Swish,
    Tan,
    Tanh,
)

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import OutPort


class _OpKind(enum.Enum):
    """An enum whose members' values are attribute-free opset op classes."""

    @property
    def op(self) -> type[Op]:
        return self.value  # type: ignore[no-any-return]

    def make(self) -> Op:
        """A fresh op of this kind (for an extractor that returns the op itself)."""
        return self.op()


class Unary(_OpKind):
    """One-input ops without attributes."""

    ABS = Abs
    ACOS = Acos
    ACOSH = Acosh
    ASIN = Asin
    ASINH = Asinh
    ATAN = Atan
    ATANH = Atanh
    BITWISE_NOT = BitwiseNot
    CEILING = Ceiling
    COS = Cos
    COSH = Cosh
    ERF = Erf
    EXP = Exp
    FLOOR = Floor
    HSIGMOID = HSigmoid
    HSWISH = HSwish
    IS_FINITE = IsFinite
    IS_INF = IsInf
    IS_NAN = IsNaN
    LOG = Log
    LOGICAL_NOT = LogicalNot
    MISH = Mish
    NEGATIVE = Negative
    RELU = ReLU
    SIGMOID = Sigmoid
    SIGN = Sign
    SIN = Sin
    SINH = Sinh
    SOFTPLUS = SoftPlus
    SOFTSIGN = SoftSign
    SQRT = Sqrt
    SWISH = Swish
    TAN = Tan
    TANH = Tanh


class Binary(_OpKind):
    """Two-input ops without attributes (NumPy broadcasting, OpenVINO's default)."""

    ADD = Add
    SUBTRACT = Subtract
    MULTIPLY = Multiply
    MAXIMUM = Maximum
    MINIMUM = Minimum
    POWER = Power
    FLOOR_MOD = FloorMod
    MOD = Mod
    SQUARED_DIFFERENCE = SquaredDifference
    EQUAL = Equal
    NOT_EQUAL = NotEqual
    LESS = Less
    LESS_EQUAL = LessEqual
    GREATER = Greater
    GREATER_EQUAL = GreaterEqual
    LOGICAL_AND = LogicalAnd
    LOGICAL_OR = LogicalOr
    LOGICAL_XOR = LogicalXor
    BITWISE_AND = BitwiseAnd
    BITWISE_OR = BitwiseOr
    BITWISE_XOR = BitwiseXor
    BITWISE_LEFT_SHIFT = BitwiseLeftShift
    BITWISE_RIGHT_SHIFT = BitwiseRightShift


def unary(ctx: ExtractContext, kind: Unary, x: OutPort, suffix: str | None = None) -> OutPort:
    """``kind`` applied to ``x``."""
    return ctx.op(kind.make(), x, suffix=suffix)


def binary(ctx: ExtractContext, kind: Binary, a: OutPort, b: OutPort, suffix: str | None = None) -> OutPort:
    """``a <kind> b``."""
    return ctx.op(kind.make(), a, b, suffix=suffix)


UNARY_OPS: tuple[type[Op], ...] = tuple(kind.op for kind in Unary)
BINARY_OPS: tuple[type[Op], ...] = tuple(kind.op for kind in Binary)


def add_n(ctx: ExtractContext, terms: Sequence[OutPort]) -> OutPort:
    """The sum of ``terms``, added left to right (one Add per further term, named ``add<i>``)."""
    total = terms[0]
    for i, term in enumerate(terms[1:], start=1):
        total = ctx.op(Add(), total, term, suffix=f"add{i}")
    return total


ADD_N_OPS: tuple[type[Op], ...] = (Add,)


def atan2(ctx: ExtractContext, y: OutPort, x: OutPort, suffix: str | None = None) -> OutPort:
    """atan2(y, x): atan(y / x), turned by pi toward y's side where x < 0; sign(y) * pi / 2
    where x == 0 (0 at the origin). The opset has no Atan2."""

    def c(value: float, name: str) -> OutPort:
        return const_like(ctx, value, x, name)

    x_is_zero = ctx.op(Equal(), x, c(0.0, "zero"), suffix="x_is_zero")
    safe_x = ctx.op(Select(), x_is_zero, c(1.0, "one"), x, suffix="safe_x")
    angle = ctx.op(Atan(), ctx.op(Divide(m_pythondiv=False), y, safe_x, suffix="ratio"), suffix="atan")
    y_negative = ctx.op(Less(), y, c(0.0, "y_zero"), suffix="y_negative")
    half_turn = ctx.op(Select(), y_negative, c(-np.pi, "minus_pi"), c(np.pi, "pi"), suffix="half_turn")
    x_negative = ctx.op(Less(), x, c(0.0, "x_zero"), suffix="x_negative")
    turned = ctx.op(Select(), x_negative, ctx.op(Add(), angle, half_turn, suffix="turned"), angle, suffix="quadrant")
    on_axis = ctx.op(Multiply(), ctx.op(Sign(), y, suffix="y_sign"), c(np.pi / 2, "half_pi"), suffix="on_axis")
    return ctx.op(Select(), x_is_zero, on_axis, turned, suffix=suffix)


ATAN2_OPS: tuple[type[Op], ...] = (Atan, Divide, Equal, Less, Select, Add, Multiply, Sign)
