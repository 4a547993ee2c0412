"""Element-wise ops: elemwise_*/broadcast_* arithmetic and comparisons, ``*_scalar`` ops,
unary math, clip, Cast, identities (Dropout, BlockGrad, _copy) and add_n.

MXNet comparisons and logical ops return 0/1 in the input's type, not booleans.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv.types import ElementType

from irconv_mxnet.extractors._common import bad, like_const, mx_op, number, text, to_type_of

Build = Callable[[ExtractContext, OutPort, OutPort], OutPort]


def _op(name: str) -> Any:
    import irconv_opset

    return getattr(irconv_opset, name)


def _arith(op_name: str) -> Build:
    def build(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
        return ctx.op(_op(op_name)(), a, b)

    return build


def _compare(op_name: str) -> Build:
    def build(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
        return to_type_of(ctx, ctx.op(_op(op_name)(), a, b, suffix="compare"), a)

    return build


def _logical(op_name: str) -> Build:
    """Logical ops on numbers: non-zero is true."""

    def build(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
        from irconv_opset import NotEqual

        zero = like_const(ctx, 0, a, "zero")
        left = ctx.op(NotEqual(), a, zero, suffix="a_bool")
        right = ctx.op(NotEqual(), b, like_const(ctx, 0, b, "zero_b"), suffix="b_bool")
        return to_type_of(ctx, ctx.op(_op(op_name)(), left, right, suffix="logical"), a)

    return build


def _hypot(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
    from irconv_opset import Add, Multiply, Sqrt

    squares = ctx.op(Add(), ctx.op(Multiply(), a, a, suffix="a2"), ctx.op(Multiply(), b, b, suffix="b2"), suffix="sum")
    return ctx.op(Sqrt(), squares)


def _mod(ctx: ExtractContext, a: OutPort, b: OutPort) -> OutPort:
    """MXNet's mod takes the divisor's sign (as Python's %)."""
    from irconv_opset import FloorMod

    return ctx.op(FloorMod(), a, b)


BINARY: dict[str, Build] = {
    "add": _arith("Add"),
    "sub": _arith("Subtract"),
    "mul": _arith("Multiply"),
    "div": _arith("Divide"),
    "mod": _mod,
    "power": _arith("Power"),
    "maximum": _arith("Maximum"),
    "minimum": _arith("Minimum"),
    "hypot": _hypot,
    "equal": _compare("Equal"),
    "not_equal": _compare("NotEqual"),
    "greater": _compare("Greater"),
    "greater_equal": _compare("GreaterEqual"),
    "lesser": _compare("Less"),
    "lesser_equal": _compare("LessEqual"),
    "logical_and": _logical("LogicalAnd"),
    "logical_or": _logical("LogicalOr"),
    "logical_xor": _logical("LogicalXor"),
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
    return [BINARY[kind](ctx, ctx.input(0), ctx.input(1))]


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
    value = like_const(ctx, number(ctx, "scalar"), x, "scalar")
    a, b = (value, x) if reverse else (x, value)
    return [BINARY[kind](ctx, a, b)]


def add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Add

    total = ctx.input(0)
    for i in range(1, len(ctx.inputs)):
        total = ctx.op(Add(), total, ctx.input(i), suffix=f"add{i}")
    return [total]


def identity(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Dropout (inference), BlockGrad, _copy, make_loss: the data as it is (Dropout's
    mask output, when present, is all ones)."""
    x = ctx.input(0)
    if ctx.source_op.n_outputs > 1:
        from irconv_opset import Broadcast

        ones = ctx.op(Broadcast(), like_const(ctx, 1, x, "one"), _shape(ctx, x), suffix="mask")
        return [x, ones]
    return [x]


def _shape(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_mxnet.extractors._common import shape_of

    return shape_of(ctx, x)


def _unary_op(name: str, node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(_op(name)(), ctx.input(0))]


def _compose(build: Callable[[ExtractContext, OutPort], OutPort], node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [build(ctx, ctx.input(0))]


def _square(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_opset import Multiply

    return ctx.op(Multiply(), x, x)


def _reciprocal(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_opset import Divide

    return ctx.op(Divide(), like_const(ctx, 1, x, "one"), x)


def _rsqrt(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_opset import Divide, Sqrt

    return ctx.op(Divide(), like_const(ctx, 1, x, "one"), ctx.op(Sqrt(), x, suffix="sqrt"))


def _log_base(base: float) -> Callable[[ExtractContext, OutPort], OutPort]:
    def build(ctx: ExtractContext, x: OutPort) -> OutPort:
        from irconv_opset import Divide, Log

        return ctx.op(Divide(), ctx.op(Log(), x, suffix="ln"), like_const(ctx, np.log(base), x, "ln_base"))

    return build


def _log1p(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_opset import Add, Log

    return ctx.op(Log(), ctx.op(Add(), x, like_const(ctx, 1, x, "one"), suffix="plus_one"))


def _expm1(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_opset import Exp, Subtract

    return ctx.op(Subtract(), ctx.op(Exp(), x, suffix="exp"), like_const(ctx, 1, x, "one"))


def _round_half_away(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_opset import Round

    return ctx.op(Round(mode="half_away_from_zero"), x)


def _fix(ctx: ExtractContext, x: OutPort) -> OutPort:
    """Round toward zero: sign(x) * floor(|x|)."""
    from irconv_opset import Abs, Floor, Multiply, Sign

    return ctx.op(Multiply(), ctx.op(Sign(), x, suffix="sign"),
                  ctx.op(Floor(), ctx.op(Abs(), x, suffix="abs"), suffix="floor"))


def _logical_not(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_opset import Equal

    return to_type_of(ctx, ctx.op(Equal(), x, like_const(ctx, 0, x, "zero"), suffix="is_zero"), x)


UNARY: dict[str, str] = {
    "negative": "Negative",
    "abs": "Abs",
    "sign": "Sign",
    "sqrt": "Sqrt",
    "exp": "Exp",
    "log": "Log",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "arcsin": "Asin",
    "arccos": "Acos",
    "arctan": "Atan",
    "sinh": "Sinh",
    "cosh": "Cosh",
    "arcsinh": "Asinh",
    "arccosh": "Acosh",
    "arctanh": "Atanh",
    "floor": "Floor",
    "ceil": "Ceiling",
    "erf": "Erf",
}

COMPOSED: dict[str, Callable[[ExtractContext, OutPort], OutPort]] = {
    "square": _square,
    "reciprocal": _reciprocal,
    "rsqrt": _rsqrt,
    "log2": _log_base(2.0),
    "log10": _log_base(10.0),
    "log1p": _log1p,
    "expm1": _expm1,
    "round": _round_half_away,
    "rint": lambda ctx, x: ctx.op(_op("Round")(mode="half_to_even"), x),
    "fix": _fix,
    "trunc": _fix,
    "logical_not": _logical_not,
}


def clip(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Clamp

    return [ctx.op(Clamp(min=number(ctx, "a_min"), max=number(ctx, "a_max")), ctx.input(0))]


def cast(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Convert

    dtype = text(ctx, "dtype", "float32")
    try:
        target = ElementType.from_numpy(np.dtype(dtype))
    except (TypeError, ValueError):
        raise bad(ctx, "dtype", dtype, "not a type MXNet or the IR knows") from None
    return [ctx.op(Convert(destination_type=target), ctx.input(0))]


def extractors() -> list[Extractor]:
    records: list[Extractor] = []
    for kind, names in BINARY_NAMES.items():
        records += mx_op(names, partial(binary, kind), kind)
    records += mx_op(tuple(SCALAR_KINDS), scalar, "Add, Subtract, Multiply, Divide, ...")
    records += mx_op(("add_n", "ElementWiseSum", "_npi_add_n"), add_n, "Add")
    records += mx_op(("Dropout", "BlockGrad", "stop_gradient", "_copy", "identity", "make_loss", "MakeLoss",
                      "IdentityAttachKLSparseReg"), identity, "Identity")
    for name, op_name in UNARY.items():
        records += mx_op(name, partial(_unary_op, op_name), op_name)
    for name, build in COMPOSED.items():
        records += mx_op(name, partial(_compose, build))
    records += mx_op("clip", clip, "Clamp")
    records += mx_op(("Cast", "cast", "amp_cast"), cast, "Convert")
    return records
