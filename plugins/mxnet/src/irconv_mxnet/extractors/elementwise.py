"""Element-wise ops: elemwise_*/broadcast_* arithmetic and comparisons, ``*_scalar`` ops,
unary math, clip, Cast, identities (Dropout, BlockGrad, _copy) and add_n.

MXNet comparisons and logical ops return 0/1 in the input's type, not booleans.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from irconv import ExtractContext
from irconv.contract.records import Produces
from irconv.frontend import aliases, const_like, extractor
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Add,
    Broadcast,
    Clamp,
    Convert,
    Divide,
    Equal,
    Exp,
    Floor,
    FloorMod,
    Log,
    Multiply,
    NotEqual,
    Round,
    ShapeOf,
    Sign,
    Sqrt,
    Subtract,
)
from irconv_opset.build import convert_like, shape_of
from irconv_opset.lowering import elementwise as lowering

Build = Callable[[ExtractContext, OutPort, OutPort], OutPort]


@dataclass(frozen=True)
class Binary:
    """How one kind of binary op is built, and the opset ops that takes."""

    build: Build
    produces: Produces


def _arith(kind: lowering.Binary) -> Binary:
    def build(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
        return lowering.binary(ctx, kind, a, b)

    return Binary(build, (kind.op,))


def _compare(kind: lowering.Binary) -> Binary:
    def build(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
        return convert_like(ctx, lowering.binary(ctx, kind, a, b, suffix="compare"), a)

    return Binary(build, (kind.op, Convert))


def _logical(kind: lowering.Binary) -> Binary:
    """Logical ops on numbers: non-zero is true."""

    def build(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
        zero = const_like(ctx, 0, a, "zero")
        left = ctx.op(NotEqual(), a, zero, suffix="a_bool")
        right = ctx.op(NotEqual(), b, const_like(ctx, 0, b, "zero_b"), suffix="b_bool")
        return convert_like(ctx, lowering.binary(ctx, kind, left, right, suffix="logical"), a)

    return Binary(build, (NotEqual, kind.op, Convert))


def _hypot(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
    squares = ctx.op(Add(), ctx.op(Multiply(), a, a, suffix="a2"), ctx.op(Multiply(), b, b, suffix="b2"), suffix="sum")
    return ctx.op(Sqrt(), squares)


def _mod(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
    """MXNet's mod takes the divisor's sign (as Python's %)."""
    return ctx.op(FloorMod(), a, b)


BINARY: dict[str, Binary] = {
    "add": _arith(lowering.Binary.ADD),
    "sub": _arith(lowering.Binary.SUBTRACT),
    "mul": _arith(lowering.Binary.MULTIPLY),
    "div": Binary(lambda ctx, a, b: ctx.op(Divide(), a, b), (Divide,)),
    "mod": Binary(_mod, (FloorMod,)),
    "power": _arith(lowering.Binary.POWER),
    "maximum": _arith(lowering.Binary.MAXIMUM),
    "minimum": _arith(lowering.Binary.MINIMUM),
    "hypot": Binary(_hypot, (Add, Multiply, Sqrt)),
    "equal": _compare(lowering.Binary.EQUAL),
    "not_equal": _compare(lowering.Binary.NOT_EQUAL),
    "greater": _compare(lowering.Binary.GREATER),
    "greater_equal": _compare(lowering.Binary.GREATER_EQUAL),
    "lesser": _compare(lowering.Binary.LESS),
    "lesser_equal": _compare(lowering.Binary.LESS_EQUAL),
    "logical_and": _logical(lowering.Binary.LOGICAL_AND),
    "logical_or": _logical(lowering.Binary.LOGICAL_OR),
    "logical_xor": _logical(lowering.Binary.LOGICAL_XOR),
}

#: Op names per binary kind: elemwise_*, broadcast_*, and the older aliases.
BINARY_NAMES: dict[str, tuple[str, ...]] = {
    "add": ("elemwise_add", "broadcast_add", "broadcast_plus", "_plus", "_Plus", "_add", "_npi_add"),
    "sub": ("elemwise_sub", "broadcast_sub", "broadcast_minus", "_minus", "_Minus", "_sub", "_npi_subtract"),
    "mul": ("elemwise_mul", "broadcast_mul", "_mul", "_Mul", "_npi_multiply"),
    "div": ("elemwise_div", "broadcast_div", "_div", "_Div", "_npi_true_divide"),
    "mod": ("broadcast_mod", "_mod", "_Mod"),
    "power": ("broadcast_power", "_power", "_Power"),
    "maximum": ("broadcast_maximum", "_maximum", "_Maximum"),
    "minimum": ("broadcast_minimum", "_minimum", "_Minimum"),
    "hypot": ("broadcast_hypot", "_hypot", "_Hypot"),
    "equal": ("broadcast_equal", "_equal"),
    "not_equal": ("broadcast_not_equal", "_not_equal"),
    "greater": ("broadcast_greater", "_greater"),
    "greater_equal": ("broadcast_greater_equal", "_greater_equal"),
    "lesser": ("broadcast_lesser", "_lesser"),
    "lesser_equal": ("broadcast_lesser_equal", "_lesser_equal"),
    "logical_and": ("broadcast_logical_and", "_logical_and"),
    "logical_or": ("broadcast_logical_or", "_logical_or"),
    "logical_xor": ("broadcast_logical_xor", "_logical_xor"),
}


def binary(kind: str, node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [BINARY[kind].build(ctx, ctx.input(0), ctx.input(1))]


#: ``_<kind>_scalar`` ops: x (op) scalar; ``_r<kind>_scalar``: scalar (op) x.
SCALAR_KINDS: dict[str, tuple[str, bool]] = {
    "_plus_scalar": ("add", False),
    "_PlusScalar": ("add", False),
    "_minus_scalar": ("sub", False),
    "_MinusScalar": ("sub", False),
    "_rminus_scalar": ("sub", True),
    "_RMinusScalar": ("sub", True),
    "_mul_scalar": ("mul", False),
    "_MulScalar": ("mul", False),
    "_div_scalar": ("div", False),
    "_DivScalar": ("div", False),
    "_rdiv_scalar": ("div", True),
    "_RDivScalar": ("div", True),
    "_mod_scalar": ("mod", False),
    "_rmod_scalar": ("mod", True),
    "_power_scalar": ("power", False),
    "_PowerScalar": ("power", False),
    "_rpower_scalar": ("power", True),
    "_RPowerScalar": ("power", True),
    "_maximum_scalar": ("maximum", False),
    "_MaximumScalar": ("maximum", False),
    "_minimum_scalar": ("minimum", False),
    "_MinimumScalar": ("minimum", False),
    "_hypot_scalar": ("hypot", False),
    "_equal_scalar": ("equal", False),
    "_not_equal_scalar": ("not_equal", False),
    "_greater_scalar": ("greater", False),
    "_greater_equal_scalar": ("greater_equal", False),
    "_lesser_scalar": ("lesser", False),
    "_lesser_equal_scalar": ("lesser_equal", False),
    "_logical_and_scalar": ("logical_and", False),
    "_logical_or_scalar": ("logical_or", False),
    "_logical_xor_scalar": ("logical_xor", False),
}


def scalar(node: Node, ctx: ExtractContext) -> list[OutPort]:
    kind, reverse = SCALAR_KINDS[ctx.source_op.op_type]
    x = ctx.input(0)
    value = const_like(ctx, ctx.attrs.float("scalar"), x, "scalar")
    a, b = (value, x) if reverse else (x, value)
    return [BINARY[kind].build(ctx, a, b)]


def add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [lowering.add_n(ctx, [ctx.input(i) for i in range(len(ctx.inputs))])]


def identity(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Dropout (inference), BlockGrad, _copy, make_loss: the data as it is (Dropout's
    mask output, when present, is all ones)."""
    x = ctx.input(0)
    if ctx.source_op.n_outputs > 1:
        ones = ctx.op(Broadcast(), const_like(ctx, 1, x, "one"), shape_of(ctx, x), suffix="mask")
        return [x, ones]
    return [x]


def _square(ctx: ExtractContext, x: OutPort) -> OutPort:
    return ctx.op(Multiply(), x, x)


def _reciprocal(ctx: ExtractContext, x: OutPort) -> OutPort:
    return ctx.op(Divide(), const_like(ctx, 1, x, "one"), x)


def _rsqrt(ctx: ExtractContext, x: OutPort) -> OutPort:
    return ctx.op(Divide(), const_like(ctx, 1, x, "one"), ctx.op(Sqrt(), x, suffix="sqrt"))


def _log_base(base: float) -> Callable[[ExtractContext, OutPort], OutPort]:
    def build(ctx: ExtractContext, x: OutPort) -> OutPort:
        return ctx.op(Divide(), ctx.op(Log(), x, suffix="ln"), const_like(ctx, np.log(base), x, "ln_base"))

    return build


def _log1p(ctx: ExtractContext, x: OutPort) -> OutPort:
    return ctx.op(Log(), ctx.op(Add(), x, const_like(ctx, 1, x, "one"), suffix="plus_one"))


def _expm1(ctx: ExtractContext, x: OutPort) -> OutPort:
    return ctx.op(Subtract(), ctx.op(Exp(), x, suffix="exp"), const_like(ctx, 1, x, "one"))


def _round_half_away(ctx: ExtractContext, x: OutPort) -> OutPort:
    return ctx.op(Round(mode="half_away_from_zero"), x)


def _fix(ctx: ExtractContext, x: OutPort) -> OutPort:
    """Round toward zero: sign(x) * floor(|x|)."""
    return ctx.op(Multiply(), ctx.op(Sign(), x, suffix="sign"),
                  ctx.op(Floor(), ctx.op(Abs(), x, suffix="abs"), suffix="floor"))


def _logical_not(ctx: ExtractContext, x: OutPort) -> OutPort:
    return convert_like(ctx, ctx.op(Equal(), x, const_like(ctx, 0, x, "zero"), suffix="is_zero"), x)


def _round_half_even(ctx: ExtractContext, x: OutPort) -> OutPort:
    return ctx.op(Round(mode="half_to_even"), x)


UNARY: dict[str, lowering.Unary] = {
    "negative": lowering.Unary.NEGATIVE,
    "abs": lowering.Unary.ABS,
    "sign": lowering.Unary.SIGN,
    "sqrt": lowering.Unary.SQRT,
    "exp": lowering.Unary.EXP,
    "log": lowering.Unary.LOG,
    "sin": lowering.Unary.SIN,
    "cos": lowering.Unary.COS,
    "tan": lowering.Unary.TAN,
    "arcsin": lowering.Unary.ASIN,
    "arccos": lowering.Unary.ACOS,
    "arctan": lowering.Unary.ATAN,
    "sinh": lowering.Unary.SINH,
    "cosh": lowering.Unary.COSH,
    "arcsinh": lowering.Unary.ASINH,
    "arccosh": lowering.Unary.ACOSH,
    "arctanh": lowering.Unary.ATANH,
    "floor": lowering.Unary.FLOOR,
    "ceil": lowering.Unary.CEILING,
    "erf": lowering.Unary.ERF,
}

#: Unary ops built from several opset ops, and the ops each takes.
COMPOSED: dict[str, tuple[Callable[[ExtractContext, OutPort], OutPort], Produces]] = {
    "square": (_square, (Multiply,)),
    "reciprocal": (_reciprocal, (Divide,)),
    "rsqrt": (_rsqrt, (Sqrt, Divide)),
    "log2": (_log_base(2.0), (Log, Divide)),
    "log10": (_log_base(10.0), (Log, Divide)),
    "log1p": (_log1p, (Add, Log)),
    "expm1": (_expm1, (Exp, Subtract)),
    "round": (_round_half_away, (Round,)),
    "rint": (_round_half_even, (Round,)),
    "fix": (_fix, (Sign, Abs, Floor, Multiply)),
    "trunc": (_fix, (Sign, Abs, Floor, Multiply)),
    "logical_not": (_logical_not, (Equal, Convert)),
}


def unary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """One stock op, the one ``UNARY`` gives the MXNet op's name."""
    return [lowering.unary(ctx, UNARY[ctx.source_op.op_type], ctx.input(0))]


def composed(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The ops ``COMPOSED`` builds for the MXNet op's name."""
    build, _ = COMPOSED[ctx.source_op.op_type]
    return [build(ctx, ctx.input(0))]


@extractor("mxnet", "clip", produces=[Clamp])
def clip(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Clamp(min=ctx.attrs.float("a_min"), max=ctx.attrs.float("a_max")), ctx.input(0))]


def cast(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dtype = ctx.attrs.str("dtype", "float32")
    try:
        target = ElementType.from_numpy(np.dtype(dtype))
    except (TypeError, ValueError):
        raise ctx.attrs.bad("dtype", dtype, "not a type MXNet or the IR knows") from None
    return [ctx.op(Convert(destination_type=target), ctx.input(0))]



BINARY_EXTRACTORS = [record for kind, names in BINARY_NAMES.items()
                     for record in aliases("mxnet", names, partial(binary, kind), produces=BINARY[kind].produces)]
SCALAR = aliases("mxnet", SCALAR_KINDS, scalar,
                 produces=list(dict.fromkeys(op for kind, _ in SCALAR_KINDS.values() for op in BINARY[kind].produces)))
ADD_N = aliases("mxnet", ["add_n", "ElementWiseSum", "_npi_add_n"], add_n, produces=[*lowering.ADD_N_OPS])
IDENTITY = aliases("mxnet", ["Dropout", "BlockGrad", "stop_gradient", "_copy", "identity", "make_loss", "MakeLoss",
                             "IdentityAttachKLSparseReg"], identity, produces=[ShapeOf, Broadcast])
UNARY_EXTRACTORS = [record for name, kind in UNARY.items()
                    for record in aliases("mxnet", [name], unary, produces=[kind.op])]
COMPOSED_EXTRACTORS = [record for name, (_, made) in COMPOSED.items()
                       for record in aliases("mxnet", [name], composed, produces=made)]
CAST = aliases("mxnet", ["Cast", "cast", "amp_cast"], cast, produces=[Convert])
