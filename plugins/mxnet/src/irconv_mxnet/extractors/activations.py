"""Activation, LeakyReLU (leaky, prelu, elu, selu, gelu, rrelu) and the softmax family."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset import (
    Divide,
    Elu,
    Gelu,
    HardSigmoid,
    Mish,
    Negative,
    PReLU,
    ReLU,
    Selu,
    Sigmoid,
    SoftPlus,
    SoftSign,
    Tanh,
)
from irconv_opset.lowering.softmax import FLATTENED_SOFTMAX_OPS, SOFTMAX_OPS, flattened_softmax
from irconv_opset.lowering.softmax import softmax as softmax_on_axis

#: SELU's fixed constants (Klambauer et al.), as MXNet uses them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_LAMBDA = 1.0507009873554804934193349852946


def _unary(ctx: ExtractContext, act: str, x: OutPort) -> OutPort:
    simple: dict[str, type[Op]] = {
        "relu": ReLU,
        "sigmoid": Sigmoid,
        "tanh": Tanh,
        "softrelu": SoftPlus,
        "softsign": SoftSign,
        "mish": Mish,
    }
    if act in simple:
        return ctx.op(simple[act](), x)
    if act == "log_sigmoid":  # log(sigmoid(x)) = -softplus(-x)
        inner = ctx.op(SoftPlus(), ctx.op(Negative(), x, suffix="neg"), suffix="softplus")
        return ctx.op(Negative(), inner)
    raise ctx.attrs.bad("act_type", act, "expected relu, sigmoid, tanh, softrelu, softsign, log_sigmoid or mish")


@extractor("mxnet", "Activation", produces=[ReLU, Sigmoid, Tanh, SoftPlus, SoftSign, Mish, Negative])
def activation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_unary(ctx, ctx.attrs.str("act_type", "relu"), ctx.input(0))]


@extractor("mxnet", "LeakyReLU", produces=[PReLU, Elu, Selu, Gelu])
def leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    act = ctx.attrs.str("act_type", "leaky")
    if act == "leaky":
        return [ctx.op(PReLU(), x, const_like(ctx, [ctx.attrs.float("slope", 0.25)], x, "slope"))]
    if act == "prelu":
        return [ctx.op(PReLU(), x, ctx.input(1))]
    if act == "rrelu":  # inference: the mean of the random slope's range
        slope = (ctx.attrs.float("lower_bound", 0.125) + ctx.attrs.float("upper_bound", 0.334)) / 2
        return [ctx.op(PReLU(), x, const_like(ctx, [slope], x, "slope"))]
    if act == "elu":
        return [ctx.op(Elu(alpha=ctx.attrs.float("slope", 0.25)), x)]
    if act == "selu":
        alpha, scale = const_like(ctx, [SELU_ALPHA], x, "alpha"), const_like(ctx, [SELU_LAMBDA], x, "lambda")
        return [ctx.op(Selu(), x, alpha, scale)]
    if act == "gelu":
        return [ctx.op(Gelu(approximation_mode="erf"), x)]
    raise ctx.attrs.bad("act_type", act, "expected leaky, prelu, rrelu, elu, selu or gelu")


def _scaled(ctx: ExtractContext, x: OutPort) -> OutPort:
    temperature = ctx.attrs.float("temperature", 1.0)
    if temperature == 1.0:
        return x
    return ctx.op(Divide(), x, const_like(ctx, temperature, x, "temperature"), suffix="temperature")


def _softmax(ctx: ExtractContext, log: bool) -> list[OutPort]:
    if ctx.attrs.bool("use_length", False):
        raise ctx.attrs.bad("use_length", True, "masked softmax (use_length) is not supported")
    return [softmax_on_axis(ctx, _scaled(ctx, ctx.input(0)), ctx.attrs.int("axis", -1), log=log)]


@extractor("mxnet", "softmax", produces=[Divide, *SOFTMAX_OPS])
def softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _softmax(ctx, log=False)


@extractor("mxnet", "log_softmax", produces=[Divide, *SOFTMAX_OPS])
def log_softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _softmax(ctx, log=True)


def softmax_output(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SoftmaxOutput at inference: softmax over axis 1 (``multi_output``), the last axis
    (``preserve_shape``) or the flattened non-batch axes; the label input is ignored."""
    x = ctx.input(0)
    if ctx.attrs.bool("multi_output", False):
        return [softmax_on_axis(ctx, x, 1)]
    if ctx.attrs.bool("preserve_shape", False):
        return [softmax_on_axis(ctx, x, -1)]
    return [flattened_softmax(ctx, x, 1)]


@extractor("mxnet", "SoftmaxActivation", produces=[*FLATTENED_SOFTMAX_OPS])
def softmax_activation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if ctx.attrs.choice("mode", ["instance", "channel"], "instance") == "channel":
        return [softmax_on_axis(ctx, ctx.input(0), 1)]
    return [flattened_softmax(ctx, ctx.input(0), 1)]


def regression_output(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Linear/MAE regression outputs pass the data through; logistic applies a sigmoid."""
    if ctx.source_op.op_type == "LogisticRegressionOutput":
        return [ctx.op(Sigmoid(), ctx.input(0))]
    return [ctx.input(0)]


@extractor("mxnet", "hard_sigmoid", produces=[HardSigmoid])
def hard_sigmoid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    alpha = const_like(ctx, np.float32(ctx.attrs.float("alpha", 0.2)), x, "alpha")
    beta = const_like(ctx, np.float32(ctx.attrs.float("beta", 0.5)), x, "beta")
    return [ctx.op(HardSigmoid(), x, alpha, beta)]


#: Activation's act_types that are also ops of their own, and what each builds.
STANDALONE: dict[str, list[type[Op]]] = {
    "relu": [ReLU],
    "sigmoid": [Sigmoid],
    "tanh": [Tanh],
    "softsign": [SoftSign],
    "log_sigmoid": [SoftPlus, Negative],
    "mish": [Mish],
}


def standalone_activation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``relu``, ``sigmoid``, ...: the MXNet op's name as Activation's act_type."""
    return [_unary(ctx, ctx.source_op.op_type, ctx.input(0))]



SOFTMAX_OUTPUT = aliases("mxnet", ["SoftmaxOutput", "Softmax"], softmax_output, produces=[*FLATTENED_SOFTMAX_OPS])
REGRESSION_OUTPUT = aliases("mxnet", ["LinearRegressionOutput", "MAERegressionOutput", "LogisticRegressionOutput"],
                            regression_output, produces=[Sigmoid])
STANDALONE_ACTIVATIONS = [record for name, made in STANDALONE.items()
                          for record in aliases("mxnet", [name], standalone_activation, produces=made)]
