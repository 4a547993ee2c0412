"""Element-wise TF ops: arithmetic, comparisons, activations."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Add,
    Clamp,
    Divide,
    Elu,
    Equal,
    Erf,
    Exp,
    Floor,
    FloorMod,
    Greater,
    IsFinite,
    IsInf,
    IsNaN,
    Less,
    LessEqual,
    Log,
    LogicalAnd,
    LogicalNot,
    LogSoftmax,
    Multiply,
    Power,
    PReLU,
    Round,
    Select,
    Selu,
    SoftMax,
    Subtract,
    Unsqueeze,
)
from irconv_opset.lowering.elementwise import ADD_N_OPS, Binary, Unary, add_n

from irconv_tf import FRAMEWORK
from irconv_tf.dtypes import numpy_dtype
from irconv_tf.extractors._base import channels_last, tf


def _plain(make: Callable[[], Op]) -> Callable[[Node, ExtractContext], Op]:
    def extract(node: Node, ctx: ExtractContext) -> Op:
        return make()

    return extract


def _is_integer(ctx: ExtractContext, idx: int) -> bool:
    dtype = ctx.attrs.int("T", 1)
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
    if channels_last(ctx) or ctx.input_rank(0) == 2:
        return Add()
    rank = require_rank(ctx, 0)
    # channels first: the bias [C] broadcasts over axis 1 of a rank-R tensor (R - 2 trailing axes).
    bias = ctx.op(
        _unsqueeze(),
        ctx.input(1),
        ctx.const(np.arange(1, rank - 1, dtype=np.int64), suffix="bias_axes"),
        suffix="bias",
    )
    return [ctx.op(Add(), ctx.input(0), bias)]


def _unsqueeze() -> Op:
    return Unsqueeze()


def _rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Power(), ctx.input(0), _scalar_like(ctx, -0.5))]


def _reciprocal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Power(), ctx.input(0), _scalar_like(ctx, -1.0))]


def _square(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Multiply(), ctx.input(0), ctx.input(0))]


def _scalar_like(ctx: ExtractContext, value: float, suffix: str = "exponent", shape: tuple[int, ...] = ()) -> OutPort:
    """A constant of the node's element type ``T`` (an f32 constant next to f16 data is refused)."""
    dtype = numpy_dtype(ctx.attrs.int("T", 1), ctx.where())
    return ctx.const(np.full(shape, value, dtype=dtype), suffix=suffix)


def _erfc(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """erfc(x) = 1 - erf(x) (Keras 3 writes exact GELU with Erfc)."""
    return [ctx.op(Subtract(), _scalar_like(ctx, 1.0), ctx.op(Erf(), ctx.input(0)))]


def _infinity_test(native: type[Op], compare: type[Op], beyond: type[Op]):  # type: ignore[no-untyped-def]
    """IsInf / IsFinite, classified by comparisons where the CPU plugin's own answer differs
    from TensorFlow's:

    * f16 (and bf16) data is computed in f32, so a value that overflowed to infinity in
      TensorFlow's arithmetic is a large finite number there: an infinity is what lies beyond
      the type's largest finite value (``beyond``: |x| > max / |x| <= max);
    * the plugin's IsInf and IsFinite answer as if no f64 value were infinite: |x| == inf /
      |x| < inf (``compare``). The plugin takes f64 as f32, so an f64 value beyond f32's range
      arrives as an infinity; no IR can tell it apart.

    NaN is neither infinite nor finite. Against the largest finite value it is ruled out by
    IsNaN, not left to the comparison: the CPU plugin's Greater answers true for a NaN operand
    on some CPUs (OpenVINO 2026.4 on AVX-512 ones, f32 data too).
    """

    def extract(node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
        element = ctx.input_type(0)
        if element not in (ElementType.f64, ElementType.f16, ElementType.bf16):
            return native()
        magnitude = ctx.op(Abs(), ctx.input(0), suffix="magnitude")
        if element is ElementType.f64:
            return [ctx.op(compare(), magnitude, const_like(ctx, np.inf, ctx.input(0), "infinity"))]
        largest = element.max_finite
        classified = ctx.op(beyond(), magnitude, const_like(ctx, largest, ctx.input(0), "largest_finite"))
        number = ctx.op(LogicalNot(), ctx.op(IsNaN(), ctx.input(0), suffix="nan"), suffix="not_nan")
        return [ctx.op(LogicalAnd(), classified, number, suffix="and_not_nan")]

    return extract


def _relu6(node: Node, ctx: ExtractContext) -> Op:
    return Clamp(min=0.0, max=6.0)


def _leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    alpha = _scalar_like(ctx, ctx.attrs.float("alpha", 0.2), "alpha", shape=(1,))
    return [ctx.op(PReLU(), ctx.input(0), alpha)]


def _softmax(make: Callable[[int], Op]) -> Callable[[Node, ExtractContext], Op]:
    def extract(node: Node, ctx: ExtractContext) -> Op:
        return make(-1)

    return extract


def _add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [add_n(ctx, [ctx.input(i) for i in range(len(ctx.inputs))])]


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


#: TF ops that are one attribute-free opset op.
_UNARY: dict[str, Unary] = {
    "Abs": Unary.ABS,
    "Neg": Unary.NEGATIVE,
    "Sign": Unary.SIGN,
    "Floor": Unary.FLOOR,
    "Ceil": Unary.CEILING,
    "Erf": Unary.ERF,
    "Sin": Unary.SIN,
    "Cos": Unary.COS,
    "Tan": Unary.TAN,
    "Asin": Unary.ASIN,
    "Acos": Unary.ACOS,
    "Atan": Unary.ATAN,
    "Sinh": Unary.SINH,
    "Cosh": Unary.COSH,
    "Acosh": Unary.ACOSH,
    "Asinh": Unary.ASINH,
    "Atanh": Unary.ATANH,
    "Exp": Unary.EXP,
    "Log": Unary.LOG,
    "Sqrt": Unary.SQRT,
    "Relu": Unary.RELU,
    "Sigmoid": Unary.SIGMOID,
    "Tanh": Unary.TANH,
    "Softplus": Unary.SOFTPLUS,
    "Softsign": Unary.SOFTSIGN,
    "LogicalNot": Unary.LOGICAL_NOT,
    "Invert": Unary.BITWISE_NOT,
    "IsNan": Unary.IS_NAN,
}
_BINARY: dict[str, Binary] = {
    "Sub": Binary.SUBTRACT,
    "Mul": Binary.MULTIPLY,
    "FloorMod": Binary.FLOOR_MOD,
    "Maximum": Binary.MAXIMUM,
    "Minimum": Binary.MINIMUM,
    "Pow": Binary.POWER,
    "SquaredDifference": Binary.SQUARED_DIFFERENCE,
    "Greater": Binary.GREATER,
    "GreaterEqual": Binary.GREATER_EQUAL,
    "Less": Binary.LESS,
    "LessEqual": Binary.LESS_EQUAL,
    "Equal": Binary.EQUAL,
    "NotEqual": Binary.NOT_EQUAL,
    "LogicalAnd": Binary.LOGICAL_AND,
    "LogicalOr": Binary.LOGICAL_OR,
    "BitwiseAnd": Binary.BITWISE_AND,
    "BitwiseOr": Binary.BITWISE_OR,
    "BitwiseXor": Binary.BITWISE_XOR,
    "Add": Binary.ADD,
    "AddV2": Binary.ADD,
    "BiasAddV1": Binary.ADD,
    "Mod": Binary.MOD,
    "TruncateMod": Binary.MOD,
}


EXTRACTORS = [
    *[tf(name, _plain(kind.make), produces=[kind.op]) for name, kind in {**_UNARY, **_BINARY}.items()],
    tf("AddN", _add_n, produces=[*ADD_N_OPS]),
    tf("BiasAdd", _bias_add, produces=[Add]),
    tf("RealDiv", _plain(lambda: Divide(m_pythondiv=False)), produces=[Divide]),
    tf("Div", _div, produces=[Divide]),
    tf("FloorDiv", _floor_div, produces=[Divide, Floor]),
    tf("TruncateDiv", _truncate_div, produces=[Divide]),
    tf("Relu6", _relu6, produces=[Clamp]),
    tf("LeakyRelu", _leaky_relu, produces=[PReLU]),
    tf("Elu", _plain(lambda: Elu(alpha=1.0)), produces=[Elu]),
    tf("Selu", _selu, produces=[Selu]),
    tf("Softmax", _softmax(lambda a: SoftMax(axis=a)), produces=[SoftMax]),
    tf("LogSoftmax", _softmax(lambda a: LogSoftmax(axis=a)), produces=[LogSoftmax]),
    tf("Rsqrt", _rsqrt, produces=[Power]),
    *aliases(FRAMEWORK, ["Reciprocal", "Inv"], _reciprocal, produces=[Power]),
    tf("Square", _square, produces=[Multiply]),
    tf("Round", _plain(lambda: Round(mode="half_to_even")), produces=[Round]),
    tf("Erfc", _erfc, produces=[Erf, Subtract]),
    tf("Log1p", _log1p, produces=[Add, Log]),
    tf("Expm1", _expm1, produces=[Exp, Subtract]),
    tf("Rint", _plain(lambda: Round(mode="half_to_even")), produces=[Round]),
    tf("DivNoNan", _div_no_nan, produces=[Divide, Select]),
    tf("IsInf", _infinity_test(IsInf, Equal, Greater),
       produces=[IsInf, Abs, Equal, Greater, IsNaN, LogicalNot, LogicalAnd]),
    tf("IsFinite", _infinity_test(IsFinite, Less, LessEqual),
       produces=[IsFinite, Abs, Less, LessEqual, IsNaN, LogicalNot, LogicalAnd]),
]
