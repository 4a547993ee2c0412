"""Element-wise layers: activations, Power/Exp/Log, Softmax, and the pass-through layers."""

from __future__ import annotations

import math
from collections.abc import Sequence

from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Add,
    Clamp,
    Convert,
    Elu,
    Exp,
    Greater,
    Log,
    Multiply,
    Power,
    PReLU,
    ReLU,
    Sigmoid,
    SoftMax,
    SoftPlus,
    Swish,
    Tanh,
)

from irconv_caffe.extractors._common import caffe, const_f32, is_set, layer_of, params


@caffe("ReLU", "ReLU, PReLU")
def extract_relu(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """``negative_slope`` gives a leaky ReLU (PReLU with one slope)."""
    slope = ctx.attr("relu_param.negative_slope")
    if slope == 0:
        return [ctx.op(ReLU(), ctx.input(0), suffix="relu")]
    # Leaky ReLU: one slope shared by every channel.
    return [ctx.op(PReLU(), ctx.input(0), const_f32(ctx, [slope], suffix="slope"), suffix="prelu")]


@caffe("ReLU6", "Clamp")
def extract_relu6(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """Fork layer: min(max(x, 0), 6)."""
    top = ctx.attr("relu6_param.n") if is_set(ctx, "relu6_param") else 6.0
    return [ctx.op(Clamp(min=0.0, max=float(top)), ctx.input(0), suffix="clamp")]


@caffe("Clip", "Clamp")
def extract_clip(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    p = params(ctx, "clip_param")
    return [ctx.op(Clamp(min=float(p.min), max=float(p.max)), ctx.input(0), suffix="clamp")]


@caffe("PReLU", "PReLU")
def extract_prelu(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """Per-channel or shared slope."""
    layer = layer_of(ctx)
    shared = ctx.attr("prelu_param.channel_shared")
    slope = layer.flat_blob(0, 1 if shared else None)
    return [ctx.op(PReLU(), ctx.input(0), ctx.const(slope, suffix="slope"), suffix="prelu")]


@caffe("ELU", "Elu")
def extract_elu(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    return [ctx.op(Elu(alpha=ctx.attr("elu_param.alpha")), ctx.input(0), suffix="elu")]


@caffe("Sigmoid", "Sigmoid")
def extract_sigmoid(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    return [ctx.op(Sigmoid(), ctx.input(0), suffix="sigmoid")]


@caffe("TanH", "Tanh")
def extract_tanh(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    return [ctx.op(Tanh(), ctx.input(0), suffix="tanh")]


@caffe("AbsVal", "Abs")
def extract_absval(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    return [ctx.op(Abs(), ctx.input(0), suffix="abs")]


@caffe("BNLL", "SoftPlus")
def extract_bnll(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    return [ctx.op(SoftPlus(), ctx.input(0), suffix="softplus")]


@caffe("Swish", "Swish")
def extract_swish(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    beta = ctx.attr("swish_param.beta")
    return [ctx.op(Swish(), ctx.input(0), const_f32(ctx, beta, suffix="beta"), suffix="swish")]


def _affine(ctx: ExtractContext, scale: float, shift: float) -> OutPort:
    """scale * x + shift, leaving out the identity steps."""
    out = ctx.input(0)
    if scale != 1:
        out = ctx.op(Multiply(), out, const_f32(ctx, scale, suffix="scale"), suffix="mul")
    if shift != 0:
        out = ctx.op(Add(), out, const_f32(ctx, shift, suffix="shift"), suffix="add")
    return out


@caffe("Power", "Multiply, Add, Power")
def extract_power(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """(shift + scale * x) ^ power."""
    p = params(ctx, "power_param")
    out = _affine(ctx, p.scale, p.shift)
    if p.power != 1:
        out = ctx.op(Power(), out, const_f32(ctx, p.power, suffix="power"), suffix="pow")
    return [out]


@caffe("Exp", "Multiply, Add, Exp")
def extract_exp(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """base ^ (shift + scale * x); base -1 means e."""
    p = params(ctx, "exp_param")
    log_base = 1.0 if p.base == -1 else math.log(p.base)
    return [ctx.op(Exp(), _affine(ctx, p.scale * log_base, p.shift * log_base), suffix="exp")]


@caffe("Log", "Multiply, Add, Log")
def extract_log(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """log_base(shift + scale * x); base -1 means e."""
    p = params(ctx, "log_param")
    out = ctx.op(Log(), _affine(ctx, p.scale, p.shift), suffix="log")
    if p.base != -1:
        out = ctx.op(Multiply(), out, const_f32(ctx, 1.0 / math.log(p.base), suffix="inv_log_base"), suffix="rebase")
    return [out]


@caffe("Threshold", "Greater, Convert")
def extract_threshold(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """1 where x > threshold, else 0."""
    t = ctx.attr("threshold_param.threshold")
    above = ctx.op(Greater(), ctx.input(0), const_f32(ctx, t, suffix="threshold"), suffix="greater")
    return [ctx.op(Convert(destination_type=ElementType.f32), above, suffix="convert")]


@caffe("Softmax", "SoftMax")
def extract_softmax(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """Any ``axis``."""
    return [ctx.op(SoftMax(axis=ctx.attr("softmax_param.axis")), ctx.input(0), suffix="softmax")]


@caffe("Dropout", "(identity at inference)")
def extract_dropout(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """Identity at inference (Caffe scales while training)."""
    # Caffe scales at training time, so inference passes the input through.
    return [ctx.input(0)]


@caffe("Split", "(identity)")
def extract_split(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """Identity: every top is the input."""
    return [ctx.input(0)] * len(ctx.attr("top"))


@caffe("Silence", "(nothing)")
def extract_silence(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    return []


EXTRACTORS = (
    extract_relu,
    extract_relu6,
    extract_clip,
    extract_prelu,
    extract_elu,
    extract_sigmoid,
    extract_tanh,
    extract_absval,
    extract_bnll,
    extract_swish,
    extract_power,
    extract_exp,
    extract_log,
    extract_threshold,
    extract_softmax,
    extract_dropout,
    extract_split,
    extract_silence,
)
