"""Elementwise ATen ops: arithmetic, comparisons, logic, unary math, where, clamp.

torch promotes operand types (``int_tensor * 0.5`` is float); OpenVINO's binary ops take
one type, so arithmetic operands are converted to the type torch gives the result, and
compared operands to their common type.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, typed
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Convert,
    Divide,
    Exp,
    Floor,
    Log,
    Maximum,
    Minimum,
    Multiply,
    Round,
    Select,
    Sign,
    Sqrt,
    Subtract,
)
from irconv_opset import Add as AddOp
from irconv_opset.lowering.elementwise import Binary, Unary, binary, unary

from irconv_torch.extractors._args import TORCH_2_5, cast, optional, out_type, tensor

# ----------------------------------------------------------------------------- binary


def _operands(ctx: ExtractContext, element_type: ElementType, second_name: str = "other") -> tuple[OutPort, OutPort]:
    first = cast(ctx, tensor(ctx, "self", element_type), element_type, suffix="self")
    second = cast(ctx, tensor(ctx, second_name, element_type), element_type, suffix=second_name)
    return first, second


def _common_type(ctx: ExtractContext) -> ElementType:
    """The type two compared operands are brought to (torch's promotion, simplified: the
    float one if any, else the wider integer)."""
    types = []
    for name in ("self", "other"):
        port = optional(ctx, name, ElementType.f32)
        if port is not None:
            types.append(port.data.element_type)
    floats = [t for t in types if t.is_float]
    if floats:
        return max(floats, key=lambda t: np.dtype(t.numpy).itemsize)
    if len(set(types)) == 1:
        return types[0]
    return ElementType.i64


def _alpha_times(ctx: ExtractContext, port: OutPort, element_type: ElementType) -> OutPort:
    """``alpha * port`` (``port`` itself for the default alpha 1)."""
    alpha = ctx.attrs.float("alpha", 1.0)
    if alpha == 1.0:
        return port
    return ctx.op(Multiply(), port, typed(ctx, alpha, element_type, suffix="alpha"), suffix="scaled")


def _add_or_sub(ctx: ExtractContext, kind: Binary) -> list[OutPort]:
    """``self ± alpha * other``."""
    element_type = out_type(ctx)
    first, second = _operands(ctx, element_type)
    return [binary(ctx, kind, first, _alpha_times(ctx, second, element_type), "op")]


def add(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _add_or_sub(ctx, Binary.ADD)


def sub(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _add_or_sub(ctx, Binary.SUBTRACT)


adds = aliases("torch", ["aten.add.Tensor", "aten.add.Scalar"], add, versions=TORCH_2_5,
               produces=[Binary.ADD.op, Multiply, Convert])
subs = aliases("torch", ["aten.sub.Tensor", "aten.sub.Scalar"], sub, versions=TORCH_2_5,
               produces=[Binary.SUBTRACT.op, Multiply, Convert])

#: aten ops that are one attribute-free opset op on two operands of the result's type.
_ARITHMETIC: dict[str, Binary] = {
    "aten.mul.Tensor": Binary.MULTIPLY, "aten.mul.Scalar": Binary.MULTIPLY,
    "aten.maximum.default": Binary.MAXIMUM, "aten.max.other": Binary.MAXIMUM,
    "aten.minimum.default": Binary.MINIMUM, "aten.min.other": Binary.MINIMUM,
    "aten.remainder.Tensor": Binary.FLOOR_MOD, "aten.remainder.Scalar": Binary.FLOOR_MOD,
    "aten.fmod.Tensor": Binary.MOD, "aten.fmod.Scalar": Binary.MOD,
    "aten.bitwise_and.Tensor": Binary.BITWISE_AND, "aten.__and__.Tensor": Binary.BITWISE_AND,
    "aten.bitwise_or.Tensor": Binary.BITWISE_OR, "aten.__or__.Tensor": Binary.BITWISE_OR,
    "aten.bitwise_xor.Tensor": Binary.BITWISE_XOR, "aten.__xor__.Tensor": Binary.BITWISE_XOR,
}


def arithmetic(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``self <op> other`` in the result's type."""
    first, second = _operands(ctx, out_type(ctx))
    return [binary(ctx, _ARITHMETIC[ctx.source_op.op_type], first, second, "op")]


def power(node: Node, ctx: ExtractContext) -> list[OutPort]:
    first, second = _operands(ctx, out_type(ctx), "exponent")
    return [binary(ctx, Binary.POWER, first, second, "op")]


arithmetics = [record for name, kind in _ARITHMETIC.items()
               for record in aliases("torch", [name], arithmetic, versions=TORCH_2_5, produces=[kind.op, Convert])]
powers = aliases("torch", ["aten.pow.Tensor_Tensor", "aten.pow.Tensor_Scalar", "aten.pow.Scalar"], power,
                 versions=TORCH_2_5, produces=[Binary.POWER.op, Convert])

#: ``aten.<name>.Tensor`` and ``.Scalar``: comparisons of operands brought to their common type.
_COMPARISONS: dict[str, Binary] = {
    f"aten.{name}.{overload}": kind
    for name, kind in {"eq": Binary.EQUAL, "ne": Binary.NOT_EQUAL, "lt": Binary.LESS, "le": Binary.LESS_EQUAL,
                       "gt": Binary.GREATER, "ge": Binary.GREATER_EQUAL}.items()
    for overload in ("Tensor", "Scalar")
}


def comparison(node: Node, ctx: ExtractContext) -> list[OutPort]:
    first, second = _operands(ctx, _common_type(ctx))
    return [binary(ctx, _COMPARISONS[ctx.source_op.op_type], first, second, "op")]


comparisons = [record for name, kind in _COMPARISONS.items()
               for record in aliases("torch", [name], comparison, versions=TORCH_2_5, produces=[kind.op, Convert])]

#: Logical ops of operands read as booleans, the result in torch's type.
_LOGICAL: dict[str, Binary] = {"aten.logical_and.default": Binary.LOGICAL_AND,
                               "aten.logical_or.default": Binary.LOGICAL_OR,
                               "aten.logical_xor.default": Binary.LOGICAL_XOR}


def logical(node: Node, ctx: ExtractContext) -> list[OutPort]:
    first, second = _operands(ctx, ElementType.boolean)
    return [cast(ctx, binary(ctx, _LOGICAL[ctx.source_op.op_type], first, second, "op"), out_type(ctx))]


logicals = [record for name, kind in _LOGICAL.items()
            for record in aliases("torch", [name], logical, versions=TORCH_2_5, produces=[kind.op, Convert])]


def div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """True division, in the (floating) result type."""
    first, second = _operands(ctx, out_type(ctx))
    return [ctx.op(Divide(m_pythondiv=False), first, second, suffix="op")]


divs = aliases("torch", ["aten.div.Tensor", "aten.div.Scalar"], div, versions=TORCH_2_5, produces=[Divide, Convert])


@extractor("torch", "aten.div.Tensor_mode", versions=TORCH_2_5, produces=[Divide, Floor, Sign, Abs, Multiply, Convert])
def div_mode(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``rounding_mode``: None divides, ``floor`` rounds down, ``trunc`` towards zero."""
    mode = ctx.attrs.get("rounding_mode")
    element_type = out_type(ctx)
    first, second = _operands(ctx, element_type)
    if mode not in (None, "floor", "trunc"):
        raise ctx.attrs.bad("rounding_mode", mode, "expected None, 'floor' or 'trunc'")
    if element_type.is_integer:  # exact through f64 for integers below 2**53
        first, second = cast(ctx, first, ElementType.f64, "self_f"), cast(ctx, second, ElementType.f64, "other_f")
    quotient = ctx.op(Divide(m_pythondiv=False), first, second, suffix="quotient")
    if mode == "floor":
        quotient = ctx.op(Floor(), quotient, suffix="floor")
    elif mode == "trunc":
        magnitude = ctx.op(Floor(), ctx.op(Abs(), quotient, suffix="abs"), suffix="floor")
        quotient = ctx.op(Multiply(), ctx.op(Sign(), quotient, suffix="sign"), magnitude, suffix="trunc")
    return [cast(ctx, quotient, element_type)]


def rsub(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``other - alpha * self``."""
    element_type = out_type(ctx)
    first, second = _operands(ctx, element_type)
    return [ctx.op(Subtract(), second, _alpha_times(ctx, first, element_type), suffix="op")]


rsubs = aliases("torch", ["aten.rsub.Scalar", "aten.rsub.Tensor"], rsub, versions=TORCH_2_5,
                produces=[Subtract, Multiply, Convert])

# ----------------------------------------------------------------------------- unary


#: Unary ops computed in the result's type: an integer input is converted first, as torch does.
_FLOATING: dict[str, Unary] = {
    f"aten.{name}.default": kind
    for name, kind in {"exp": Unary.EXP, "log": Unary.LOG, "sqrt": Unary.SQRT, "sin": Unary.SIN, "cos": Unary.COS,
                       "tan": Unary.TAN, "tanh": Unary.TANH, "sigmoid": Unary.SIGMOID, "erf": Unary.ERF,
                       "asin": Unary.ASIN, "acos": Unary.ACOS, "atan": Unary.ATAN, "sinh": Unary.SINH,
                       "cosh": Unary.COSH}.items()
}
#: Unary ops on ``self`` as it is.
_SAME_TYPE: dict[str, Unary] = {
    f"aten.{name}.default": kind
    for name, kind in {"abs": Unary.ABS, "neg": Unary.NEGATIVE, "floor": Unary.FLOOR, "ceil": Unary.CEILING,
                       "sign": Unary.SIGN, "relu": Unary.RELU, "logical_not": Unary.LOGICAL_NOT,
                       "bitwise_not": Unary.BITWISE_NOT, "isnan": Unary.IS_NAN, "isinf": Unary.IS_INF,
                       "isfinite": Unary.IS_FINITE}.items()
}


def floating_unary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    port = cast(ctx, tensor(ctx, "self"), out_type(ctx))
    return [unary(ctx, _FLOATING[ctx.source_op.op_type], port, "op")]


def same_type_unary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [unary(ctx, _SAME_TYPE[ctx.source_op.op_type], tensor(ctx, "self"), "op")]


floating_unaries = [record for name, kind in _FLOATING.items()
                    for record in aliases("torch", [name], floating_unary, versions=TORCH_2_5,
                                          produces=[kind.op, Convert])]
same_type_unaries = [record for name, kind in _SAME_TYPE.items()
                     for record in aliases("torch", [name], same_type_unary, versions=TORCH_2_5, produces=[kind.op])]


@extractor("torch", "aten.round.default", versions=TORCH_2_5, produces=[Round])
def round_half_to_even(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Round(mode="half_to_even"), tensor(ctx, "self"), suffix="op")]


@extractor("torch", "aten.rsqrt.default", versions=TORCH_2_5, produces=[Sqrt, Divide, Convert])
def rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    root = ctx.op(Sqrt(), cast(ctx, tensor(ctx, "self"), element_type), suffix="sqrt")
    return [ctx.op(Divide(), typed(ctx, 1, element_type, suffix="one"), root, suffix="op")]


@extractor("torch", "aten.reciprocal.default", versions=TORCH_2_5, produces=[Divide, Convert])
def reciprocal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    port = cast(ctx, tensor(ctx, "self"), element_type)
    return [ctx.op(Divide(), typed(ctx, 1, element_type, suffix="one"), port, suffix="op")]


@extractor("torch", "aten.log1p.default", versions=TORCH_2_5, produces=[Log, AddOp, Convert])
def log1p(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    port = cast(ctx, tensor(ctx, "self"), element_type)
    return [ctx.op(Log(), ctx.op(AddOp(), port, typed(ctx, 1, element_type, suffix="one"), suffix="plus1"))]


@extractor("torch", "aten.log2.default", versions=TORCH_2_5, produces=[Log, Divide, Convert])
def log2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    port = ctx.op(Log(), cast(ctx, tensor(ctx, "self"), element_type), suffix="ln")
    return [ctx.op(Divide(), port, typed(ctx, np.log(2.0), element_type, suffix="ln2"), suffix="op")]


@extractor("torch", "aten.expm1.default", versions=TORCH_2_5, produces=[Exp, Subtract, Convert])
def expm1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    port = ctx.op(Exp(), cast(ctx, tensor(ctx, "self"), element_type), suffix="exp")
    return [ctx.op(Subtract(), port, typed(ctx, 1, element_type, suffix="one"), suffix="op")]


@extractor("torch", "aten.trunc.default", versions=TORCH_2_5, produces=[Floor, Sign, Abs, Multiply])
def trunc(node: Node, ctx: ExtractContext) -> list[OutPort]:
    port = tensor(ctx, "self")
    if port.data.element_type.is_integer:
        return [port]
    magnitude = ctx.op(Floor(), ctx.op(Abs(), port, suffix="abs"), suffix="floor")
    return [ctx.op(Multiply(), ctx.op(Sign(), port, suffix="sign"), magnitude, suffix="op")]


# ----------------------------------------------------------------------------- select, clamp


def where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``condition ? self : other``; a Python number for either is a constant of the result type."""
    element_type = out_type(ctx)
    condition = cast(ctx, tensor(ctx, "condition", ElementType.boolean), ElementType.boolean, suffix="condition")
    first, second = _operands(ctx, element_type)
    return [ctx.op(Select(), condition, first, second, suffix="op")]


wheres = aliases("torch", ["aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar"],
                where, versions=TORCH_2_5, produces=[Select, Convert])


def masked_fill(node: Node, ctx: ExtractContext) -> list[OutPort]:
    port = tensor(ctx, "self")
    mask = cast(ctx, tensor(ctx, "mask", ElementType.boolean), ElementType.boolean, suffix="mask")
    value = cast(ctx, tensor(ctx, "value", port.data.element_type), port.data.element_type, suffix="value")
    return [ctx.op(Select(), mask, value, port, suffix="op")]


masked_fills = aliases("torch", ["aten.masked_fill.Scalar", "aten.masked_fill.Tensor"], masked_fill, versions=TORCH_2_5,
                       produces=[Select, Convert])


def clamp(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Maximum and Minimum: bounds may be tensors, absent, or of another type than ``self``."""
    element_type = out_type(ctx)
    port = cast(ctx, tensor(ctx, "self"), element_type)
    low, high = optional(ctx, "min", element_type), optional(ctx, "max", element_type)
    if low is not None:
        port = ctx.op(Maximum(), port, cast(ctx, low, element_type, "min_t"), suffix="min")
    if high is not None:
        port = ctx.op(Minimum(), port, cast(ctx, high, element_type, "max_t"), suffix="max")
    return [port]


clamps = aliases("torch", ["aten.clamp.default", "aten.clamp.Tensor"], clamp, versions=TORCH_2_5,
                 produces=[Maximum, Minimum, Convert])
clamp_min = aliases("torch", ["aten.clamp_min.default"], clamp, versions=TORCH_2_5, produces=[Maximum, Convert])
clamp_max = aliases("torch", ["aten.clamp_max.default"], clamp, versions=TORCH_2_5, produces=[Minimum, Convert])
