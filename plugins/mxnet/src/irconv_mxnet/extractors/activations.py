"""Activation, LeakyReLU (leaky, prelu, elu, selu, gelu, rrelu) and the softmax family."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor

from irconv_mxnet.extractors._common import (
    bad,
    flag,
    i64,
    integer,
    like_const,
    mx_op,
    number,
    rank,
    shape_of,
    text,
)

#: SELU's fixed constants (Klambauer et al.), as MXNet uses them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_LAMBDA = 1.0507009873554804934193349852946


def _unary(ctx: ExtractContext, act: str, x: OutPort) -> OutPort:
    from irconv_opset import Mish, Negative, ReLU, Sigmoid, SoftPlus, SoftSign, Tanh

    simple: dict[str, Callable[[], object]] = {
        "relu": ReLU,
        "sigmoid": Sigmoid,
        "tanh": Tanh,
        "softrelu": SoftPlus,
        "softsign": SoftSign,
        "mish": Mish,
    }
    if act in simple:
        return ctx.op(simple[act](), x)  # type: ignore[arg-type]
    if act == "log_sigmoid":  # log(sigmoid(x)) = -softplus(-x)
        inner = ctx.op(SoftPlus(), ctx.op(Negative(), x, suffix="neg"), suffix="softplus")
        return ctx.op(Negative(), inner)
    raise bad(ctx, "act_type", act, "expected relu, sigmoid, tanh, softrelu, softsign, log_sigmoid or mish")


def activation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_unary(ctx, text(ctx, "act_type", "relu"), ctx.input(0))]


def leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Elu, Gelu, PReLU, Selu

    x = ctx.input(0)
    act = text(ctx, "act_type", "leaky")
    if act == "leaky":
        return [ctx.op(PReLU(), x, like_const(ctx, [number(ctx, "slope", 0.25)], x, "slope"))]
    if act == "prelu":
        return [ctx.op(PReLU(), x, ctx.input(1))]
    if act == "rrelu":  # inference: the mean of the random slope's range
        slope = (number(ctx, "lower_bound", 0.125) + number(ctx, "upper_bound", 0.334)) / 2
        return [ctx.op(PReLU(), x, like_const(ctx, [slope], x, "slope"))]
    if act == "elu":
        return [ctx.op(Elu(alpha=number(ctx, "slope", 0.25)), x)]
    if act == "selu":
        return [ctx.op(Selu(), x, like_const(ctx, [SELU_ALPHA], x, "alpha"), like_const(ctx, [SELU_LAMBDA], x, "lambda"))]
    if act == "gelu":
        return [ctx.op(Gelu(approximation_mode="erf"), x)]
    raise bad(ctx, "act_type", act, "expected leaky, prelu, rrelu, elu, selu or gelu")


def _scaled(ctx: ExtractContext, x: OutPort) -> OutPort:
    from irconv_opset import Divide

    temperature = ctx.attr("temperature", None)
    if temperature is None or float(temperature) == 1.0:
        return x
    return ctx.op(Divide(), x, like_const(ctx, float(temperature), x, "temperature"), suffix="temperature")


def _softmax(ctx: ExtractContext, log: bool) -> list[OutPort]:
    from irconv_opset import LogSoftmax, SoftMax

    if flag(ctx, "use_length", False):
        raise bad(ctx, "use_length", True, "masked softmax (use_length) is not supported")
    axis = integer(ctx, "axis", -1)
    x = _scaled(ctx, ctx.input(0))
    op = LogSoftmax(axis=axis) if log else SoftMax(axis=axis)
    return [ctx.op(op, x)]


def softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _softmax(ctx, log=False)


def log_softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _softmax(ctx, log=True)


def _flat_softmax(ctx: ExtractContext, x: OutPort) -> OutPort:
    """Softmax over everything but axis 0, keeping the input's shape."""
    from irconv_opset import Reshape, SoftMax

    if rank(ctx, 0) == 2:
        return ctx.op(SoftMax(axis=1), x)
    flat = ctx.op(Reshape(special_zero=True), x, i64(ctx, [0, -1]), suffix="flatten")
    out = ctx.op(SoftMax(axis=1), flat, suffix="softmax")
    return ctx.op(Reshape(special_zero=False), out, shape_of(ctx, x))


def softmax_output(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SoftmaxOutput at inference: softmax over axis 1 (``multi_output``), the last axis
    (``preserve_shape``) or the flattened non-batch axes; the label input is ignored."""
    from irconv_opset import SoftMax

    x = ctx.input(0)
    if flag(ctx, "multi_output", False):
        return [ctx.op(SoftMax(axis=1), x)]
    if flag(ctx, "preserve_shape", False):
        return [ctx.op(SoftMax(axis=-1), x)]
    return [_flat_softmax(ctx, x)]


def softmax_activation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import SoftMax

    mode = text(ctx, "mode", "instance")
    if mode == "channel":
        return [ctx.op(SoftMax(axis=1), ctx.input(0))]
    if mode != "instance":
        raise bad(ctx, "mode", mode, "expected instance or channel")
    return [_flat_softmax(ctx, ctx.input(0))]


def regression_output(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Linear/MAE regression outputs pass the data through; logistic applies a sigmoid."""
    from irconv_opset import Sigmoid

    if ctx.source_op.op_type == "LogisticRegressionOutput":
        return [ctx.op(Sigmoid(), ctx.input(0))]
    return [ctx.input(0)]


def hard_sigmoid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import HardSigmoid

    x = ctx.input(0)
    alpha = like_const(ctx, np.float32(number(ctx, "alpha", 0.2)), x, "alpha")
    beta = like_const(ctx, np.float32(number(ctx, "beta", 0.5)), x, "beta")
    return [ctx.op(HardSigmoid(), x, alpha, beta)]


def _named(act: str) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        return [_unary(ctx, act, ctx.input(0))]

    return extract


def extractors() -> list[Extractor]:
    return [
        *mx_op("Activation", activation, "ReLU, Sigmoid, Tanh, SoftPlus, SoftSign, Mish"),
        *mx_op("LeakyReLU", leaky_relu, "PReLU, Elu, Selu, Gelu"),
        *mx_op("softmax", softmax, "SoftMax"),
        *mx_op("log_softmax", log_softmax, "LogSoftmax"),
        *mx_op(("SoftmaxOutput", "Softmax"), softmax_output, "SoftMax"),
        *mx_op("SoftmaxActivation", softmax_activation, "SoftMax"),
        *mx_op(("LinearRegressionOutput", "MAERegressionOutput", "LogisticRegressionOutput"), regression_output,
               "Sigmoid"),
        *mx_op("hard_sigmoid", hard_sigmoid, "HardSigmoid"),
        *mx_op("relu", _named("relu"), "ReLU"),
        *mx_op("sigmoid", _named("sigmoid"), "Sigmoid"),
        *mx_op("tanh", _named("tanh"), "Tanh"),
        *mx_op("softsign", _named("softsign"), "SoftSign"),
        *mx_op("log_sigmoid", _named("log_sigmoid"), "SoftPlus, Negative"),
        *mx_op("mish", _named("mish"), "Mish"),
    ]
