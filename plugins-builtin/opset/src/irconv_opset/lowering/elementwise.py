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

import irconv_opset as opset

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import OutPort


class _OpKind(enum.Enum):
    """An enum whose members' values are attribute-free opset op classes."""

    @property
    def op(self) -> type[Op]:
        op: type[Op] = self.value
        return op

    def make(self) -> Op:
        """A fresh op of this kind (for an extractor that returns the op itself)."""
        return self.op()


class Unary(_OpKind):
    """One-input ops without attributes."""

    ABS = opset.Abs
    ACOS = opset.Acos
    ACOSH = opset.Acosh
    ASIN = opset.Asin
    ASINH = opset.Asinh
    ATAN = opset.Atan
    ATANH = opset.Atanh
    BITWISE_NOT = opset.BitwiseNot
    CEILING = opset.Ceiling
    COS = opset.Cos
    COSH = opset.Cosh
    ERF = opset.Erf
    EXP = opset.Exp
    FLOOR = opset.Floor
    HSIGMOID = opset.HSigmoid
    HSWISH = opset.HSwish
    IS_FINITE = opset.IsFinite
    IS_INF = opset.IsInf
    IS_NAN = opset.IsNaN
    LOG = opset.Log
    LOGICAL_NOT = opset.LogicalNot
    MISH = opset.Mish
    NEGATIVE = opset.Negative
    RELU = opset.ReLU
    SIGMOID = opset.Sigmoid
    SIGN = opset.Sign
    SIN = opset.Sin
    SINH = opset.Sinh
    SOFTPLUS = opset.SoftPlus
    SOFTSIGN = opset.SoftSign
    SQRT = opset.Sqrt
    SWISH = opset.Swish
    TAN = opset.Tan
    TANH = opset.Tanh


class Binary(_OpKind):
    """Two-input ops without attributes (NumPy broadcasting, OpenVINO's default)."""

    ADD = opset.Add
    SUBTRACT = opset.Subtract
    MULTIPLY = opset.Multiply
    MAXIMUM = opset.Maximum
    MINIMUM = opset.Minimum
    POWER = opset.Power
    FLOOR_MOD = opset.FloorMod
    MOD = opset.Mod
    SQUARED_DIFFERENCE = opset.SquaredDifference
    EQUAL = opset.Equal
    NOT_EQUAL = opset.NotEqual
    LESS = opset.Less
    LESS_EQUAL = opset.LessEqual
    GREATER = opset.Greater
    GREATER_EQUAL = opset.GreaterEqual
    LOGICAL_AND = opset.LogicalAnd
    LOGICAL_OR = opset.LogicalOr
    LOGICAL_XOR = opset.LogicalXor
    BITWISE_AND = opset.BitwiseAnd
    BITWISE_OR = opset.BitwiseOr
    BITWISE_XOR = opset.BitwiseXor
    BITWISE_LEFT_SHIFT = opset.BitwiseLeftShift
    BITWISE_RIGHT_SHIFT = opset.BitwiseRightShift


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
        total = ctx.op(opset.Add(), total, term, suffix=f"add{i}")
    return total


ADD_N_OPS: tuple[type[Op], ...] = (opset.Add,)


def atan2(ctx: ExtractContext, y: OutPort, x: OutPort, suffix: str | None = None) -> OutPort:
    """atan2(y, x): atan(y / x), turned by pi toward y's side where x < 0; sign(y) * pi / 2
    where x == 0 (0 at the origin). The opset has no Atan2."""

    def c(value: float, name: str) -> OutPort:
        return const_like(ctx, value, x, name)

    x_is_zero = ctx.op(opset.Equal(), x, c(0.0, "zero"), suffix="x_is_zero")
    safe_x = ctx.op(opset.Select(), x_is_zero, c(1.0, "one"), x, suffix="safe_x")
    ratio = ctx.op(opset.Divide(m_pythondiv=False), y, safe_x, suffix="ratio")
    angle = ctx.op(opset.Atan(), ratio, suffix="atan")
    y_negative = ctx.op(opset.Less(), y, c(0.0, "y_zero"), suffix="y_negative")
    half_turn = ctx.op(opset.Select(), y_negative, c(-np.pi, "minus_pi"), c(np.pi, "pi"), suffix="half_turn")
    x_negative = ctx.op(opset.Less(), x, c(0.0, "x_zero"), suffix="x_negative")
    turned = ctx.op(opset.Add(), angle, half_turn, suffix="turned")
    turned = ctx.op(opset.Select(), x_negative, turned, angle, suffix="quadrant")
    y_sign = ctx.op(opset.Sign(), y, suffix="y_sign")
    on_axis = ctx.op(opset.Multiply(), y_sign, c(np.pi / 2, "half_pi"), suffix="on_axis")
    return ctx.op(opset.Select(), x_is_zero, on_axis, turned, suffix=suffix)


ATAN2_OPS: tuple[type[Op], ...] = (
    opset.Atan, opset.Divide, opset.Equal, opset.Less, opset.Select, opset.Add, opset.Multiply, opset.Sign
)


def floor_divide(ctx: ExtractContext, x: OutPort, y: OutPort, integer: bool, suffix: str | None = None) -> OutPort:
    """x / y rounded toward minus infinity. Integers: (x - FloorMod(x, y)) / y divides
    exactly, so truncating and flooring agree (OpenVINO 2026.4's CPU plugin truncates an
    integer Divide even with ``m_pythondiv``: -7 // 3 gave -2)."""
    if integer:
        remainder = ctx.op(opset.FloorMod(), x, y, suffix="remainder")
        multiple = ctx.op(opset.Subtract(), x, remainder, suffix="multiple")
        return ctx.op(opset.Divide(m_pythondiv=False), multiple, y, suffix=suffix)
    quotient = ctx.op(opset.Divide(m_pythondiv=False), x, y, suffix="quotient")
    return ctx.op(opset.Floor(), quotient, suffix=suffix)


FLOOR_DIVIDE_OPS: tuple[type[Op], ...] = (opset.FloorMod, opset.Subtract, opset.Divide, opset.Floor)


def bit_shift(ctx: ExtractContext, x: OutPort, shift: OutPort, left: bool, logical: bool = False) -> OutPort:
    """``x`` shifted left or right by ``shift``; right shifts of signed integers are
    arithmetic unless ``logical``. Shifts by a negative amount or by the width or more shift
    everything out: 0, or the sign fill for an arithmetic right shift of a negative value
    (the opset leaves them undefined). A logical right shift keeps only the bits that stay,
    masking with ``~(ones << (width - shift))``: OpenVINO 2026.4's CPU plugin computes u32
    as i32, so it shifts in the sign bit even for unsigned types (0x80000005 >> 3 gave
    0xF0000000)."""
    et = x.data.element_type
    op = opset.BitwiseLeftShift() if left else opset.BitwiseRightShift()
    shifted = ctx.op(op, x, shift, suffix="shift")
    signed = et.value.startswith("i")
    logical = not left and et.is_integer and (logical or not signed)
    if logical:
        # (ones << (width - 1 - shift)) << 1: no shift by the full width where shift is 0
        width = np.dtype(et.numpy).itemsize * 8
        ones = const_like(ctx, -1 if signed else (1 << width) - 1, x, "ones")
        kept = ctx.op(opset.Subtract(), const_like(ctx, width - 1, shift, "top_bit"), shift, suffix="kept_bits")
        dropped = ctx.op(opset.BitwiseLeftShift(), ctx.op(opset.BitwiseLeftShift(), ones, kept, suffix="dropped_half"),
                         const_like(ctx, 1, shift, "one"), suffix="dropped")
        mask = ctx.op(opset.BitwiseNot(), dropped, suffix="mask")
        shifted = ctx.op(opset.BitwiseAnd(), shifted, mask, suffix="logical")
    if not et.is_integer:
        return shifted
    width = np.dtype(et.numpy).itemsize * 8
    too_far = ctx.op(opset.GreaterEqual(), shift, const_like(ctx, width, shift, "width"), suffix="too_far")
    if signed:
        negative_shift = ctx.op(opset.Less(), shift, const_like(ctx, 0, shift, "zero_shift"), suffix="negative_shift")
        too_far = ctx.op(opset.LogicalOr(), too_far, negative_shift, suffix="out_of_range")
    zero = const_like(ctx, 0, x, "zero")
    fill = zero
    if not left and not logical and signed:
        fill = ctx.op(opset.Select(), ctx.op(opset.Less(), x, zero, suffix="negative"),
                      const_like(ctx, -1, x, "minus_one"), zero, suffix="sign_fill")
    return ctx.op(opset.Select(), too_far, fill, shifted)


BIT_SHIFT_OPS: tuple[type[Op], ...] = (
    opset.BitwiseAnd, opset.BitwiseLeftShift, opset.BitwiseNot, opset.BitwiseRightShift, opset.GreaterEqual,
    opset.Less, opset.LogicalOr, opset.Select, opset.Subtract,
)
