"""Elementwise ATen ops: arithmetic, comparisons, logic, unary math, where, clamp.

torch promotes operand types (``int_tensor * 0.5`` is float); OpenVINO's binary ops take
one type, so arithmetic operands are converted to the type torch gives the result, and
compared operands to their common type.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, typed
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import Abs, Divide, Exp, Floor, Log, Maximum, Minimum, Multiply, Round, Select, Sign, Sqrt, Subtract
from irconv_opset import Add as AddOp
from irconv_opset.lowering.elementwise import Binary, Unary

from irconv_torch.extractors._args import TORCH_2_5, cast, optional, out_type, tensor

# ----------------------------------------------------------------------------- binary


def _operands(ctx: ExtractContext, element_type: ElementType, second_name: str = "other") -> tuple[OutPort, OutPort]:
    first = cast(ctx, tensor(ctx, "self", element_type), element_type, suffix="self")
    second = cast(ctx, tensor(ctx, second_name, element_type), element_type, suffix=second_name)
    return first, second


def _arithmetic(make: Callable[[], Op], second_name: str = "other") -> Callable[[Node, ExtractContext], list[OutPort]]:
    """``self <op> other`` in the result's type."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        first, second = _operands(ctx, out_type(ctx), second_name)
        return [ctx.op(make(), first, second, suffix="op")]

    return extract


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


def _comparison(make: Callable[[], Op]) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        first, second = _operands(ctx, _common_type(ctx))
        return [ctx.op(make(), first, second, suffix="op")]

    return extract


def _add_or_sub(make: Callable[[], Op]) -> Callable[[Node, ExtractContext], list[OutPort]]:
    """``self ± alpha * other``."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        element_type = out_type(ctx)
        first, second = _operands(ctx, element_type)
        return [ctx.op(make(), first, _alpha_times(ctx, second, element_type), suffix="op")]

    return extract


def _alpha_times(ctx: ExtractContext, port: OutPort, element_type: ElementType) -> OutPort:
    """``alpha * port`` (``port`` itself for the default alpha 1)."""
    alpha = ctx.attrs.float("alpha", 1.0)
    if alpha == 1.0:
        return port
    return ctx.op(Multiply(), port, typed(ctx, alpha, element_type, suffix="alpha"), suffix="scaled")


add = aliases("torch", ["aten.add.Tensor", "aten.add.Scalar"], _add_or_sub(AddOp), versions=TORCH_2_5,
              produces=[AddOp, Multiply])
sub = aliases("torch", ["aten.sub.Tensor", "aten.sub.Scalar"], _add_or_sub(Subtract), versions=TORCH_2_5,
              produces=[Subtract, Multiply])
#: aten ops that are one attribute-free opset op on two operands of the result's type.
_ARITHMETIC: dict[tuple[str, ...], Binary] = {
    ("aten.mul.Tensor", "aten.mul.Scalar"): Binary.MULTIPLY,
    ("aten.maximum.default", "aten.max.other"): Binary.MAXIMUM,
    ("aten.minimum.default", "aten.min.other"): Binary.MINIMUM,
    ("aten.remainder.Tensor", "aten.remainder.Scalar"): Binary.FLOOR_MOD,
    ("aten.fmod.Tensor", "aten.fmod.Scalar"): Binary.MOD,
    ("aten.bitwise_and.Tensor", "aten.__and__.Tensor"): Binary.BITWISE_AND,
    ("aten.bitwise_or.Tensor", "aten.__or__.Tensor"): Binary.BITWISE_OR,
    ("aten.bitwise_xor.Tensor", "aten.__xor__.Tensor"): Binary.BITWISE_XOR,
}
#: ``aten.<name>.Tensor`` and ``.Scalar``: comparisons of operands brought to their common type.
_COMPARISONS: dict[str, Binary] = {
    "eq": Binary.EQUAL, "ne": Binary.NOT_EQUAL, "lt": Binary.LESS, "le": Binary.LESS_EQUAL,
    "gt": Binary.GREATER, "ge": Binary.GREATER_EQUAL,
}
arithmetic = [
    *[r for names, kind in _ARITHMETIC.items()
      for r in aliases("torch", list(names), _arithmetic(kind.make), versions=TORCH_2_5, produces=[kind.op])],
    *aliases("torch", ["aten.pow.Tensor_Tensor", "aten.pow.Tensor_Scalar", "aten.pow.Scalar"],
             _arithmetic(Binary.POWER.make, "exponent"), versions=TORCH_2_5, produces=[Binary.POWER.op]),
]
comparisons = [
    r for name, kind in _COMPARISONS.items()
    for r in aliases("torch", [f"aten.{name}.Tensor", f"aten.{name}.Scalar"], _comparison(kind.make),
                     versions=TORCH_2_5, produces=[kind.op])
]


def _logical(make: Callable[[], Op]) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        first, second = _operands(ctx, ElementType.boolean)
        return [cast(ctx, ctx.op(make(), first, second, suffix="op"), out_type(ctx))]

    return extract


logical = [
    extractor("torch", f"aten.logical_{name}.default", _logical(kind.make), versions=TORCH_2_5, produces=[kind.op])
    for name, kind in {"and": Binary.LOGICAL_AND, "or": Binary.LOGICAL_OR, "xor": Binary.LOGICAL_XOR}.items()
]


@extractor("torch", "aten.div.Tensor", versions=TORCH_2_5, produces=[Divide])
def div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """True division, in the (floating) result type."""
    first, second = _operands(ctx, out_type(ctx))
    return [ctx.op(Divide(m_pythondiv=False), first, second, suffix="op")]


div_scalar = extractor("torch", "aten.div.Scalar", div.extract, versions=TORCH_2_5, produces=[Divide])


@extractor("torch", "aten.div.Tensor_mode", versions=TORCH_2_5, produces=[Divide, Floor, Sign, Abs, Multiply])
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


@extractor("torch", "aten.rsub.Scalar", versions=TORCH_2_5, produces=[Subtract, Multiply])
def rsub(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``other - alpha * self``."""
    element_type = out_type(ctx)
    first, second = _operands(ctx, element_type)
    return [ctx.op(Subtract(), second, _alpha_times(ctx, first, element_type), suffix="op")]


rsub_tensor = extractor("torch", "aten.rsub.Tensor", rsub.extract, versions=TORCH_2_5, produces=[Subtract, Multiply])

# ----------------------------------------------------------------------------- unary


def _unary(make: Callable[[], Op], *, floating: bool = False) -> Callable[[Node, ExtractContext], list[OutPort]]:
    """``make()`` applied to ``self``; ``floating`` ops (exp, sin, ...) compute in the
    result's type, so an integer input is converted first (torch does the same)."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        port = tensor(ctx, "self")
        if floating:
            port = cast(ctx, port, out_type(ctx))
        return [ctx.op(make(), port, suffix="op")]

    return extract


_FLOATING = {"exp": Unary.EXP, "log": Unary.LOG, "sqrt": Unary.SQRT, "sin": Unary.SIN, "cos": Unary.COS,
             "tan": Unary.TAN, "tanh": Unary.TANH, "sigmoid": Unary.SIGMOID, "erf": Unary.ERF, "asin": Unary.ASIN,
             "acos": Unary.ACOS, "atan": Unary.ATAN, "sinh": Unary.SINH, "cosh": Unary.COSH}
_SAME_TYPE = {"abs": Unary.ABS, "neg": Unary.NEGATIVE, "floor": Unary.FLOOR, "ceil": Unary.CEILING,
              "sign": Unary.SIGN, "relu": Unary.RELU, "logical_not": Unary.LOGICAL_NOT,
              "bitwise_not": Unary.BITWISE_NOT, "isnan": Unary.IS_NAN, "isinf": Unary.IS_INF,
              "isfinite": Unary.IS_FINITE}
unary = [
    *[r for name, kind in _FLOATING.items()
      for r in aliases("torch", [f"aten.{name}.default"], _unary(kind.make, floating=True), versions=TORCH_2_5,
                       produces=[kind.op])],
    *[r for name, kind in _SAME_TYPE.items()
      for r in aliases("torch", [f"aten.{name}.default"], _unary(kind.make), versions=TORCH_2_5, produces=[kind.op])],
    extractor("torch", "aten.round.default", _unary(lambda: Round(mode="half_to_even")), versions=TORCH_2_5, produces=[Round]),
]


@extractor("torch", "aten.rsqrt.default", versions=TORCH_2_5, produces=[Sqrt, Divide])
def rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    root = ctx.op(Sqrt(), cast(ctx, tensor(ctx, "self"), element_type), suffix="sqrt")
    return [ctx.op(Divide(), typed(ctx, 1, element_type, suffix="one"), root, suffix="op")]


@extractor("torch", "aten.reciprocal.default", versions=TORCH_2_5, produces=[Divide])
def reciprocal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    port = cast(ctx, tensor(ctx, "self"), element_type)
    return [ctx.op(Divide(), typed(ctx, 1, element_type, suffix="one"), port, suffix="op")]


@extractor("torch", "aten.log1p.default", versions=TORCH_2_5, produces=[Log, AddOp])
def log1p(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    port = cast(ctx, tensor(ctx, "self"), element_type)
    return [ctx.op(Log(), ctx.op(AddOp(), port, typed(ctx, 1, element_type, suffix="one"), suffix="plus1"))]


@extractor("torch", "aten.log2.default", versions=TORCH_2_5, produces=[Log, Divide])
def log2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    port = ctx.op(Log(), cast(ctx, tensor(ctx, "self"), element_type), suffix="ln")
    return [ctx.op(Divide(), port, typed(ctx, np.log(2.0), element_type, suffix="ln2"), suffix="op")]


@extractor("torch", "aten.expm1.default", versions=TORCH_2_5, produces=[Exp, Subtract])
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


def _where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``condition ? self : other``; a Python number for either is a constant of the result type."""
    element_type = out_type(ctx)
    condition = cast(ctx, tensor(ctx, "condition", ElementType.boolean), ElementType.boolean, suffix="condition")
    first, second = _operands(ctx, element_type)
    return [ctx.op(Select(), condition, first, second, suffix="op")]


where = aliases("torch", ["aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar"],
                _where, versions=TORCH_2_5, produces=[Select])


@extractor("torch", "aten.masked_fill.Scalar", versions=TORCH_2_5, produces=[Select])
def masked_fill(node: Node, ctx: ExtractContext) -> list[OutPort]:
    port = tensor(ctx, "self")
    mask = cast(ctx, tensor(ctx, "mask", ElementType.boolean), ElementType.boolean, suffix="mask")
    value = cast(ctx, tensor(ctx, "value", port.data.element_type), port.data.element_type, suffix="value")
    return [ctx.op(Select(), mask, value, port, suffix="op")]


masked_fill_tensor = extractor("torch", "aten.masked_fill.Tensor", masked_fill.extract, versions=TORCH_2_5, produces=[Select])


@extractor("torch", "aten.clamp.default", versions=TORCH_2_5, produces=[Maximum, Minimum])
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


clamp_tensor = extractor("torch", "aten.clamp.Tensor", clamp.extract, versions=TORCH_2_5, produces=[Maximum, Minimum])
clamp_min = extractor("torch", "aten.clamp_min.default", clamp.extract, versions=TORCH_2_5, produces=[Maximum])
clamp_max = extractor("torch", "aten.clamp_max.default", clamp.extract, versions=TORCH_2_5, produces=[Minimum])
