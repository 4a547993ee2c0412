"""Element-wise TF ops: arithmetic, comparisons, activations."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor
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
    BitwiseNot,
    BitwiseOr,
    BitwiseXor,
    Ceiling,
    Clamp,
    Cos,
    Cosh,
    Divide,
    Elu,
    Equal,
    Erf,
    Exp,
    Floor,
    FloorMod,
    Greater,
    GreaterEqual,
    IsFinite,
    IsInf,
    IsNaN,
    Less,
    LessEqual,
    Log,
    LogicalAnd,
    LogicalNot,
    LogicalOr,
    LogSoftmax,
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
    Selu,
    Sigmoid,
    Sign,
    Sin,
    Sinh,
    SoftMax,
    SoftPlus,
    SoftSign,
    Sqrt,
    SquaredDifference,
    Subtract,
    Tan,
    Tanh,
)

from irconv_tf.extractors._base import channels_last, table


def _plain(make: Callable[[], Op]) -> Callable[[Node, ExtractContext], Op]:
    def extract(node: Node, ctx: ExtractContext) -> Op:
        return make()

    return extract


def _is_integer(ctx: ExtractContext, idx: int) -> bool:
    dtype = ctx.attr("T", 1)
    return dtype in (3, 4, 5, 6, 9, 17, 22, 23)


def _div(node: Node, ctx: ExtractContext) -> Op:
    # TF Div truncates integers toward zero (C semantics); FloorDiv is the flooring one.
    return Divide(m_pythondiv=False)


def _floor_div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if _is_integer(ctx, 0):
        # (x - FloorMod(x, y)) / y divides exactly, so truncating and flooring agree; the CPU
        # plugin truncates integer Divide even with m_pythondiv (-7 // 3 gave -2, not -3).
        remainder = ctx.op(FloorMod(), ctx.input(0), ctx.input(1), suffix="remainder")
        multiple = ctx.op(Subtract(), ctx.input(0), remainder, suffix="multiple")
        return [ctx.op(Divide(m_pythondiv=False), multiple, ctx.input(1))]
    quotient = ctx.op(Divide(m_pythondiv=False), ctx.input(0), ctx.input(1), suffix="div")
    return [ctx.op(Floor(), quotient)]


def _truncate_div(node: Node, ctx: ExtractContext) -> Op:
    return Divide(m_pythondiv=False)


def _bias_add(node: Node, ctx: ExtractContext) -> list[OutPort] | Op:
    rank = ctx.input_rank(0)
    if channels_last(ctx) or rank == 2:
        return Add()
    if rank is None:
        raise ConversionError(f"node {node.name!r}: BiasAdd with data_format NCHW needs the rank of its input")
    # channels first: the bias [C] broadcasts over axis 1 of a rank-R tensor (R - 2 trailing axes).
    bias = ctx.op(
        _unsqueeze(),
        ctx.input(1),
        ctx.const(np.arange(1, rank - 1, dtype=np.int64), suffix="bias_axes"),
        suffix="bias",
    )
    return [ctx.op(Add(), ctx.input(0), bias)]


def _unsqueeze() -> Op:
    from irconv_opset import Unsqueeze

    return Unsqueeze()


def _rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Power(), ctx.input(0), _scalar_like(ctx, -0.5))]


def _reciprocal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Power(), ctx.input(0), _scalar_like(ctx, -1.0))]


def _square(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Multiply(), ctx.input(0), ctx.input(0))]


def _scalar_like(ctx: ExtractContext, value: float, suffix: str = "exponent", shape: tuple[int, ...] = ()) -> OutPort:
    """A constant of the node's element type ``T`` (an f32 constant next to f16 data is refused)."""
    from irconv_tf.dtypes import numpy_dtype

    dtype = numpy_dtype(ctx.attr("T", 1), ctx.node.name)
    return ctx.const(np.full(shape, value, dtype=dtype), suffix=suffix)


def _erfc(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """erfc(x) = 1 - erf(x) (Keras 3 writes exact GELU with Erfc)."""
    return [ctx.op(Subtract(), _scalar_like(ctx, 1.0), ctx.op(Erf(), ctx.input(0)))]


def _relu6(node: Node, ctx: ExtractContext) -> Op:
    return Clamp(min=0.0, max=6.0)


def _leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    alpha = _scalar_like(ctx, float(ctx.attr("alpha", 0.2)), "alpha", shape=(1,))
    return [ctx.op(PReLU(), ctx.input(0), alpha)]


def _softmax(make: Callable[[int], Op]) -> Callable[[Node, ExtractContext], Op]:
    def extract(node: Node, ctx: ExtractContext) -> Op:
        return make(-1)

    return extract


def _add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    total = ctx.input(0)
    for i in range(1, len(ctx.inputs)):
        total = ctx.op(Add(), total, ctx.input(i), suffix=f"add{i}")
    return [total]


def _selu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    alpha = _scalar_like(ctx, 1.6732632423543772, "alpha", shape=(1,))
    scale = _scalar_like(ctx, 1.0507009873554805, "lambda", shape=(1,))
    return [ctx.op(Selu(), ctx.input(0), alpha, scale)]


def _log1p(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Log(), ctx.op(Add(), ctx.input(0), _scalar_like(ctx, 1.0, "one"), suffix="plus_one"))]


def _expm1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Subtract(), ctx.op(Exp(), ctx.input(0), suffix="exp"), _scalar_like(ctx, 1.0, "one"))]


def _div_no_nan(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x / y, and 0 wherever y == 0 (whatever x is)."""
    zero = _scalar_like(ctx, 0.0, "zero")
    is_zero = ctx.op(Equal(), ctx.input(1), zero, suffix="y_is_zero")
    safe = ctx.op(Select(), is_zero, _scalar_like(ctx, 1.0, "one"), ctx.input(1), suffix="safe_y")
    quotient = ctx.op(Divide(m_pythondiv=False), ctx.input(0), safe, suffix="quotient")
    return [ctx.op(Select(), is_zero, zero, quotient)]


def extractors() -> list[Extractor]:
    p = _plain
    return table(
        {
            "Add": (p(Add), "Add"),
            "AddV2": (p(Add), "Add"),
            "AddN": (_add_n, "Add"),
            "BiasAdd": (_bias_add, "Add"),
            "Sub": (p(Subtract), "Subtract"),
            "Mul": (p(Multiply), "Multiply"),
            "RealDiv": (p(lambda: Divide(m_pythondiv=False)), "Divide"),
            "Div": (_div, "Divide"),
            "FloorDiv": (_floor_div, "Divide, Floor"),
            "TruncateDiv": (_truncate_div, "Divide"),
            "FloorMod": (p(FloorMod), "FloorMod"),
            "Maximum": (p(Maximum), "Maximum"),
            "Minimum": (p(Minimum), "Minimum"),
            "Pow": (p(Power), "Power"),
            "SquaredDifference": (p(SquaredDifference), "SquaredDifference"),
            "Greater": (p(Greater), "Greater"),
            "GreaterEqual": (p(GreaterEqual), "GreaterEqual"),
            "Less": (p(Less), "Less"),
            "LessEqual": (p(LessEqual), "LessEqual"),
            "Equal": (p(Equal), "Equal"),
            "NotEqual": (p(NotEqual), "NotEqual"),
            "LogicalAnd": (p(LogicalAnd), "LogicalAnd"),
            "LogicalOr": (p(LogicalOr), "LogicalOr"),
            "LogicalNot": (p(LogicalNot), "LogicalNot"),
            "Relu": (p(ReLU), "ReLU"),
            "Relu6": (_relu6, "Clamp"),
            "LeakyRelu": (_leaky_relu, "PReLU"),
            "Elu": (p(lambda: Elu(alpha=1.0)), "Elu"),
            "Selu": (_selu, "Selu"),
            "Sigmoid": (p(Sigmoid), "Sigmoid"),
            "Tanh": (p(Tanh), "Tanh"),
            "Softplus": (p(SoftPlus), "SoftPlus"),
            "Softsign": (p(SoftSign), "SoftSign"),
            "Softmax": (_softmax(lambda a: SoftMax(axis=a)), "SoftMax"),
            "LogSoftmax": (_softmax(lambda a: LogSoftmax(axis=a)), "LogSoftmax"),
            "Exp": (p(Exp), "Exp"),
            "Log": (p(Log), "Log"),
            "Sqrt": (p(Sqrt), "Sqrt"),
            "Rsqrt": (_rsqrt, "Power"),
            "Reciprocal": (_reciprocal, "Power"),
            "Inv": (_reciprocal, "Power"),
            "Square": (_square, "Multiply"),
            "Abs": (p(Abs), "Abs"),
            "Neg": (p(Negative), "Negative"),
            "Sign": (p(Sign), "Sign"),
            "Floor": (p(Floor), "Floor"),
            "Ceil": (p(Ceiling), "Ceiling"),
            "Round": (p(lambda: Round(mode="half_to_even")), "Round"),
            "Erf": (p(Erf), "Erf"),
            "Erfc": (_erfc, "Erf, Subtract"),
            "Sin": (p(Sin), "Sin"),
            "Cos": (p(Cos), "Cos"),
            "Tan": (p(Tan), "Tan"),
            "Asin": (p(Asin), "Asin"),
            "Acos": (p(Acos), "Acos"),
            "Atan": (p(Atan), "Atan"),
            "Sinh": (p(Sinh), "Sinh"),
            "Cosh": (p(Cosh), "Cosh"),
            "Acosh": (p(Acosh), "Acosh"),
            "Asinh": (p(Asinh), "Asinh"),
            "Atanh": (p(Atanh), "Atanh"),
            "Log1p": (_log1p, "Add, Log"),
            "Expm1": (_expm1, "Exp, Subtract"),
            "Rint": (p(lambda: Round(mode="half_to_even")), "Round"),
            "Mod": (p(Mod), "Mod"),
            "TruncateMod": (p(Mod), "Mod"),
            "DivNoNan": (_div_no_nan, "Divide, Select"),
            "BiasAddV1": (p(Add), "Add"),
            "BitwiseAnd": (p(BitwiseAnd), "BitwiseAnd"),
            "BitwiseOr": (p(BitwiseOr), "BitwiseOr"),
            "BitwiseXor": (p(BitwiseXor), "BitwiseXor"),
            "Invert": (p(BitwiseNot), "BitwiseNot"),
            "IsInf": (p(IsInf), "IsInf"),
            "IsNan": (p(IsNaN), "IsNaN"),
            "IsFinite": (p(IsFinite), "IsFinite"),
        }
    )
