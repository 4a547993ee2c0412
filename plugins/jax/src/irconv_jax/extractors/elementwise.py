"""Elementwise StableHLO ops: arithmetic, comparisons, logic, unary math, select, clamp,
convert. StableHLO's operands already share shape and type (jax broadcasts and converts
explicitly), so each op maps onto one opset op or a short expression."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Convert,
    Divide,
    Exp,
    Log,
    Maximum,
    Minimum,
    Round,
    Select,
    Sqrt,
    Subtract,
)
from irconv_opset.lowering.elementwise import (
    ATAN2_OPS,
    BIT_SHIFT_OPS,
    Binary,
    Unary,
    atan2,
    binary,
    bit_shift,
    unary,
)

from irconv_jax.program import HloOp

_BINARY = {
    "stablehlo.add": Binary.ADD, "stablehlo.subtract": Binary.SUBTRACT, "stablehlo.multiply": Binary.MULTIPLY,
    "stablehlo.maximum": Binary.MAXIMUM, "stablehlo.minimum": Binary.MINIMUM, "stablehlo.power": Binary.POWER,
    "stablehlo.remainder": Binary.MOD,
}
# and/or/xor/not are logical on i1 and bitwise on integers.
_LOGICAL = {"stablehlo.and": (Binary.LOGICAL_AND, Binary.BITWISE_AND),
            "stablehlo.or": (Binary.LOGICAL_OR, Binary.BITWISE_OR),
            "stablehlo.xor": (Binary.LOGICAL_XOR, Binary.BITWISE_XOR)}
_UNARY = {
    "stablehlo.abs": Unary.ABS, "stablehlo.negate": Unary.NEGATIVE, "stablehlo.exponential": Unary.EXP,
    "stablehlo.log": Unary.LOG, "stablehlo.sqrt": Unary.SQRT, "stablehlo.tanh": Unary.TANH,
    "stablehlo.logistic": Unary.SIGMOID, "stablehlo.sine": Unary.SIN, "stablehlo.cosine": Unary.COS,
    "stablehlo.tan": Unary.TAN, "stablehlo.floor": Unary.FLOOR, "stablehlo.ceil": Unary.CEILING,
    "stablehlo.sign": Unary.SIGN, "stablehlo.is_finite": Unary.IS_FINITE, "chlo.erf": Unary.ERF,
    "chlo.sinh": Unary.SINH, "chlo.cosh": Unary.COSH, "chlo.asin": Unary.ASIN, "chlo.acos": Unary.ACOS,
    "chlo.atan": Unary.ATAN, "chlo.asinh": Unary.ASINH, "chlo.acosh": Unary.ACOSH, "chlo.atanh": Unary.ATANH,
}
_COMPARISONS = {"EQ": Binary.EQUAL, "NE": Binary.NOT_EQUAL, "LT": Binary.LESS, "LE": Binary.LESS_EQUAL,
                "GT": Binary.GREATER, "GE": Binary.GREATER_EQUAL}


def _op_name(ctx: ExtractContext) -> str:
    return ctx.source_as(HloOp).name


def _result_type(ctx: ExtractContext) -> ElementType:
    return ctx.source_as(HloOp).results[0].element_type


def extract_binary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [binary(ctx, _BINARY[_op_name(ctx)], ctx.input(0), ctx.input(1))]


# one record per op, so that each names exactly the op it builds
binary_ops = [record for name, kind in _BINARY.items()
              for record in aliases("jax", [name], extract_binary, produces=[kind.op])]


def extract_logical(node: Node, ctx: ExtractContext) -> list[OutPort]:
    logical, bitwise = _LOGICAL[_op_name(ctx)]
    kind = logical if ctx.input_type(0) is ElementType.boolean else bitwise
    return [binary(ctx, kind, ctx.input(0), ctx.input(1))]


logical_ops = [record for name, (logical, bitwise) in _LOGICAL.items()
               for record in aliases("jax", [name], extract_logical, produces=[logical.op, bitwise.op])]


@extractor("jax", "stablehlo.divide", produces=[Divide])
def extract_divide(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Integer division truncates toward zero in StableHLO (C's rule), not Python's floor."""
    return [ctx.op(Divide(m_pythondiv=False), ctx.input(0), ctx.input(1))]


def extract_shift(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Shifts as StableHLO defines them for every amount (by the width or more: 0, or the sign
    fill of an arithmetic right shift)."""
    name = _op_name(ctx)
    return [bit_shift(ctx, ctx.input(0), ctx.input(1), left=name == "stablehlo.shift_left",
                      logical=name == "stablehlo.shift_right_logical")]


shift_ops = aliases("jax", ["stablehlo.shift_left", "stablehlo.shift_right_arithmetic",
                            "stablehlo.shift_right_logical"], extract_shift, produces=BIT_SHIFT_OPS)


@extractor("jax", "stablehlo.atan2", produces=ATAN2_OPS)
def extract_atan2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [atan2(ctx, ctx.input(0), ctx.input(1))]


def extract_unary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [unary(ctx, _UNARY[_op_name(ctx)], ctx.input(0))]


unary_ops = [record for name, kind in _UNARY.items()
             for record in aliases("jax", [name], extract_unary, produces=[kind.op])]


@extractor("jax", "stablehlo.not", produces=[Unary.LOGICAL_NOT.op, Unary.BITWISE_NOT.op])
def extract_not(node: Node, ctx: ExtractContext) -> list[OutPort]:
    kind = Unary.LOGICAL_NOT if ctx.input_type(0) is ElementType.boolean else Unary.BITWISE_NOT
    return [unary(ctx, kind, ctx.input(0))]


@extractor("jax", "stablehlo.rsqrt", produces=[Sqrt, Divide])
def extract_rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    return [ctx.op(Divide(), const_like(ctx, 1, x), ctx.op(Sqrt(), x, suffix="sqrt"))]


@extractor("jax", "stablehlo.exponential_minus_one", produces=[Exp, Subtract])
def extract_expm1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    return [ctx.op(Subtract(), ctx.op(Exp(), x, suffix="exp"), const_like(ctx, 1, x))]


@extractor("jax", "stablehlo.log_plus_one", produces=[Add, Log])
def extract_log1p(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    return [ctx.op(Log(), ctx.op(Add(), x, const_like(ctx, 1, x), suffix="add"))]


@extractor("jax", "stablehlo.round_nearest_even", produces=[Round])
def extract_round_even(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Round(mode="half_to_even"), ctx.input(0))]


@extractor("jax", "stablehlo.round_nearest_afz", produces=[Round])
def extract_round_afz(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Round(mode="half_away_from_zero"), ctx.input(0))]


@extractor("jax", "stablehlo.compare", produces=[kind.op for kind in _COMPARISONS.values()])
def extract_compare(node: Node, ctx: ExtractContext) -> list[OutPort]:
    direction = ctx.attrs.choice("comparison_direction", list(_COMPARISONS))
    return [binary(ctx, _COMPARISONS[direction], ctx.input(0), ctx.input(1))]


@extractor("jax", "stablehlo.select", produces=[Select])
def extract_select(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Select(), ctx.input(0), ctx.input(1), ctx.input(2))]


@extractor("jax", "stablehlo.clamp", produces=[Minimum, Maximum])
def extract_clamp(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """clamp(min, x, max); min and max are scalars or x's shape."""
    upper = ctx.op(Minimum(), ctx.input(1), ctx.input(2), suffix="max")
    return [ctx.op(Maximum(), upper, ctx.input(0))]


@extractor("jax", "stablehlo.convert", produces=[Convert])
def extract_convert(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Convert(destination_type=_result_type(ctx)), ctx.input(0))]

