"""Element-wise operators: arithmetic with fused activations, comparisons, logic, unary
functions and activations. TFLite broadcasts NumPy-style, as OpenVINO's ops do."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset import (
    Add,
    Clamp,
    Divide,
    Elu,
    Gelu,
    HSwish,
    Multiply,
    PReLU,
    Round,
    Select,
    Sigmoid,
    Sqrt,
    Subtract,
)
from irconv_opset.lowering.elementwise import ADD_N_OPS, ATAN2_OPS, FLOOR_DIVIDE_OPS, Binary, Unary, floor_divide
from irconv_opset.lowering.elementwise import add_n as sum_of
from irconv_opset.lowering.elementwise import atan2 as atan2_of

from irconv_tflite.extractors import integer, integer_tables
from irconv_tflite.extractors._common import FUSED_ACTIVATION_OPS, fused_activation, whole


def _fused_binary(ctx: ExtractContext, op: Op) -> list[OutPort]:
    return [fused_activation(ctx, ctx.op(op, ctx.input(0), ctx.input(1), suffix="op"))]


@extractor("tflite", "ADD", produces=[Add, *FUSED_ACTIVATION_OPS, *integer.INTEGER_OPS])
def add(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A full-integer ADD as LiteRT computes it (``extractors.integer``), else Add."""
    exact = integer.add(ctx)
    return [exact] if exact is not None else _fused_binary(ctx, Add())


@extractor("tflite", "SUB", produces=[Subtract, *FUSED_ACTIVATION_OPS])
def sub(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _fused_binary(ctx, Subtract())


@extractor("tflite", "MUL", produces=[Multiply, *FUSED_ACTIVATION_OPS, *integer.INTEGER_OPS])
def mul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    exact = integer.multiply(ctx)
    return [exact] if exact is not None else _fused_binary(ctx, Multiply())


@extractor("tflite", "DIV", produces=[Divide, *FUSED_ACTIVATION_OPS])
def div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """DIV truncates integers (C division)."""
    return _fused_binary(ctx, Divide(m_pythondiv=not ctx.input_type(0).is_integer))


#: Operators that are one attribute-free opset op.
_PLAIN: dict[str, Unary | Binary] = {
    "MAXIMUM": Binary.MAXIMUM,
    "MINIMUM": Binary.MINIMUM,
    "POW": Binary.POWER,
    "SQUARED_DIFFERENCE": Binary.SQUARED_DIFFERENCE,
    "FLOOR_MOD": Binary.FLOOR_MOD,
    "EQUAL": Binary.EQUAL,
    "NOT_EQUAL": Binary.NOT_EQUAL,
    "LESS": Binary.LESS,
    "LESS_EQUAL": Binary.LESS_EQUAL,
    "GREATER": Binary.GREATER,
    "GREATER_EQUAL": Binary.GREATER_EQUAL,
    "LOGICAL_AND": Binary.LOGICAL_AND,
    "LOGICAL_OR": Binary.LOGICAL_OR,
    "BITWISE_XOR": Binary.BITWISE_XOR,
    "RIGHT_SHIFT": Binary.BITWISE_RIGHT_SHIFT,
    "LOGICAL_NOT": Unary.LOGICAL_NOT,
    "ABS": Unary.ABS,
    "NEG": Unary.NEGATIVE,
    "EXP": Unary.EXP,
    "LOG": Unary.LOG,
    "SQRT": Unary.SQRT,
    "SIN": Unary.SIN,
    "COS": Unary.COS,
    "FLOOR": Unary.FLOOR,
    "CEIL": Unary.CEILING,
    "SIGN": Unary.SIGN,
    "TANH": Unary.TANH,
    "RELU": Unary.RELU,
}


def plain(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, _PLAIN[ctx.source_op.op_type].make())


PLAIN = [record for name, kind in _PLAIN.items() for record in aliases("tflite", [name], plain, produces=[kind.op])]


def select(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Select())


SELECT = aliases("tflite", ["SELECT", "SELECT_V2"], select, produces=[Select])


@extractor("tflite", "FLOOR_DIV", produces=FLOOR_DIVIDE_OPS)
def floor_div(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [floor_divide(ctx, ctx.input(0), ctx.input(1), ctx.input_type(0).is_integer, suffix="floor_div")]


@extractor("tflite", "ADD_N", produces=ADD_N_OPS)
def add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [sum_of(ctx, [ctx.input(idx) for idx in range(len(ctx.inputs))])]


@extractor("tflite", "ROUND", produces=[Round])
def round_(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Round(mode="half_to_even"))


@extractor("tflite", "LOGISTIC", produces=[Sigmoid, *integer.INTEGER_OPS])
def logistic(node: Node, ctx: ExtractContext) -> list[OutPort]:
    exact = integer.table(ctx, integer_tables.sigmoid)
    return [exact] if exact is not None else whole(ctx, Sigmoid())


@extractor("tflite", "HARD_SWISH", produces=[HSwish, *integer.INTEGER_OPS])
def hard_swish(node: Node, ctx: ExtractContext) -> list[OutPort]:
    exact = integer.table(ctx, integer_tables.hard_swish)
    return [exact] if exact is not None else whole(ctx, HSwish())


#: Activations that are a Clamp to a fixed range.
_CLAMPS = {"RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0), "RELU_0_TO_1": (0.0, 1.0)}


def clamp(node: Node, ctx: ExtractContext) -> list[OutPort]:
    low, high = _CLAMPS[ctx.source_op.op_type]
    return whole(ctx, Clamp(min=low, max=high))


CLAMPS = aliases("tflite", list(_CLAMPS), clamp, produces=[Clamp])


@extractor("tflite", "ELU", produces=[Elu])
def elu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Elu(alpha=1.0))


@extractor("tflite", "PRELU", produces=[PReLU])
def prelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, PReLU())


@extractor("tflite", "GELU", produces=[Gelu])
def gelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Gelu(approximation_mode="tanh" if ctx.attrs.bool("approximate", False) else "erf"))


@extractor("tflite", "RSQRT", produces=[Sqrt, Divide])
def rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    root = ctx.op(Sqrt(), ctx.input(0), suffix="sqrt")
    return [ctx.op(Divide(), const_like(ctx, 1, root, suffix="one"), root, suffix="rsqrt")]


@extractor("tflite", "SQUARE", produces=[Multiply])
def square(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Multiply(), ctx.input(0), ctx.input(0), suffix="square")]


@extractor("tflite", "LEAKY_RELU", produces=[PReLU])
def leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    alpha = ctx.const(np.float32(ctx.attrs.float("alpha", 0.2)).reshape(1), suffix="alpha")
    return [ctx.op(PReLU(), ctx.input(0), alpha, suffix="leaky_relu")]


@extractor("tflite", "ATAN2", produces=ATAN2_OPS)
def atan2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [atan2_of(ctx, ctx.input(0), ctx.input(1), suffix="atan2")]
