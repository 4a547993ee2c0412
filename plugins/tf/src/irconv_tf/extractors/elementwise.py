"""Element-wise TF ops: arithmetic, comparisons, activations."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor, require_rank
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

from irconv_tf.dtypes import numpy_dtype
from irconv_tf.extractors._base import channels_last, on_inputs


def _is_integer(ctx: ExtractContext, idx: int) -> bool:
    dtype = ctx.attrs.int("T", 1)
    return dtype in (3, 4, 5, 6, 9, 17, 22, 23)


@extractor("tf", "Div", produces=[Divide])
def _div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    # TF Div truncates integers toward zero (C semantics); FloorDiv is the flooring one.
    return on_inputs(ctx, Divide(m_pythondiv=False))


@extractor("tf", "FloorDiv", produces=[Divide, Floor, FloorMod, Subtract])
def _floor_div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if _is_integer(ctx, 0):
        # (x - FloorMod(x, y)) / y divides exactly, so truncating and flooring agree; the CPU
        # plugin truncates integer Divide even with m_pythondiv (-7 // 3 gave -2, not -3).
        remainder = ctx.op(FloorMod(), ctx.input(0), ctx.input(1), suffix="remainder")
        multiple = ctx.op(Subtract(), ctx.input(0), remainder, suffix="multiple")
        return [ctx.op(Divide(m_pythondiv=False), multiple, ctx.input(1))]
    quotient = ctx.op(Divide(m_pythondiv=False), ctx.input(0), ctx.input(1), suffix="div")
    return [ctx.op(Floor(), quotient)]


@extractor("tf", "TruncateDiv", produces=[Divide])
def _truncate_div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Divide(m_pythondiv=False))


@extractor("tf", "BiasAdd", produces=[Add, Unsqueeze])
def _bias_add(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if channels_last(ctx) or ctx.input_rank(0) == 2:
        return on_inputs(ctx, Add())
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


@extractor("tf", "Rsqrt", produces=[Power])
def _rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Power(), ctx.input(0), _scalar_like(ctx, -0.5))]


def _reciprocal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Power(), ctx.input(0), _scalar_like(ctx, -1.0))]


@extractor("tf", "Square", produces=[Multiply])
def _square(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Multiply(), ctx.input(0), ctx.input(0))]


def _scalar_like(ctx: ExtractContext, value: float, suffix: str = "exponent", shape: tuple[int, ...] = ()) -> OutPort:
    """A constant of the node's element type ``T`` (an f32 constant next to f16 data is refused)."""
    dtype = numpy_dtype(ctx.attrs.int("T", 1), ctx.where())
    return ctx.const(np.full(shape, value, dtype=dtype), suffix=suffix)


@extractor("tf", "Erfc", produces=[Erf, Subtract])
def _erfc(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """erfc(x) = 1 - erf(x) (Keras 3 writes exact GELU with Erfc)."""
    return [ctx.op(Subtract(), _scalar_like(ctx, 1.0), ctx.op(Erf(), ctx.input(0)))]


def _infinity_test(node: Node, ctx: ExtractContext, native: type[Op], compare: type[Op], beyond: type[Op]
) -> list[OutPort]:
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
    element = ctx.input_type(0)
    if element not in (ElementType.f64, ElementType.f16, ElementType.bf16):
        return on_inputs(ctx, native())
    magnitude = ctx.op(Abs(), ctx.input(0), suffix="magnitude")
    if element is ElementType.f64:
        return [ctx.op(compare(), magnitude, const_like(ctx, np.inf, ctx.input(0), "infinity"))]
    largest = element.max_finite
    classified = ctx.op(beyond(), magnitude, const_like(ctx, largest, ctx.input(0), "largest_finite"))
    number = ctx.op(LogicalNot(), ctx.op(IsNaN(), ctx.input(0), suffix="nan"), suffix="not_nan")
    return [ctx.op(LogicalAnd(), classified, number, suffix="and_not_nan")]


@extractor("tf", "Relu6", produces=[Clamp])
def _relu6(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Clamp(min=0.0, max=6.0))


@extractor("tf", "LeakyRelu", produces=[PReLU])
def _leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    alpha = _scalar_like(ctx, ctx.attrs.float("alpha", 0.2), "alpha", shape=(1,))
    return [ctx.op(PReLU(), ctx.input(0), alpha)]


@extractor("tf", "AddN", produces=[*ADD_N_OPS])
def _add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [add_n(ctx, [ctx.input(i) for i in range(len(ctx.inputs))])]


@extractor("tf", "Selu", produces=[Selu])
def _selu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    alpha = _scalar_like(ctx, 1.6732632423543772, "alpha", shape=(1,))
    scale = _scalar_like(ctx, 1.0507009873554805, "lambda", shape=(1,))
    return [ctx.op(Selu(), ctx.input(0), alpha, scale)]


@extractor("tf", "Log1p", produces=[Add, Log])
def _log1p(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Log(), ctx.op(Add(), ctx.input(0), _scalar_like(ctx, 1.0, "one"), suffix="plus_one"))]


@extractor("tf", "Expm1", produces=[Exp, Subtract])
def _expm1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Subtract(), ctx.op(Exp(), ctx.input(0), suffix="exp"), _scalar_like(ctx, 1.0, "one"))]


@extractor("tf", "DivNoNan", produces=[Divide, Select, Equal])
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


RECIPROCAL = aliases("tf", ["Reciprocal", "Inv"], _reciprocal, produces=[Power])


@extractor("tf", "RealDiv", produces=[Divide])
def _real_div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Divide(m_pythondiv=False))


@extractor("tf", "Elu", produces=[Elu])
def _elu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Elu(alpha=1.0))


@extractor("tf", "Softmax", produces=[SoftMax])
def _softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, SoftMax(axis=-1))


@extractor("tf", "LogSoftmax", produces=[LogSoftmax])
def _log_softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, LogSoftmax(axis=-1))


def _round_half_to_even(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Round(mode="half_to_even"))


ROUND = aliases("tf", ["Round", "Rint"], _round_half_to_even, produces=[Round])


@extractor("tf", "IsInf", produces=[IsInf, Abs, Equal, Greater, IsNaN, LogicalNot, LogicalAnd])
def _is_inf(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _infinity_test(node, ctx, IsInf, Equal, Greater)


@extractor("tf", "IsFinite", produces=[IsFinite, Abs, Less, LessEqual, IsNaN, LogicalNot, LogicalAnd])
def _is_finite(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _infinity_test(node, ctx, IsFinite, Less, LessEqual)



def _one_op(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The TF ops that are one attribute-free opset op, on the node's inputs."""
    return on_inputs(ctx, _ONE_OP[ctx.source_op.op_type].make())


_ONE_OP: dict[str, Unary | Binary] = {**_UNARY, **_BINARY}
ONE_OP = [record for name, kind in _ONE_OP.items() for record in aliases("tf", [name], _one_op, produces=[kind.op])]
