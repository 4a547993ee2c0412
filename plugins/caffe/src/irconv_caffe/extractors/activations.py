"""Element-wise layers: activations, Power/Exp/Log, Softmax, and the pass-through layers."""

from __future__ import annotations

import math

from irconv import ExtractContext
from irconv.frontend import extractor, f32
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

from irconv_caffe.layer import CaffeLayer


@extractor("caffe", "ReLU", produces=[ReLU, PReLU])
def extract_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``negative_slope`` gives a leaky ReLU (PReLU with one slope)."""
    slope = ctx.attrs.float("relu_param.negative_slope")
    if slope == 0:
        return [ctx.op(ReLU(), ctx.input(0), suffix="relu")]
    # Leaky ReLU: one slope shared by every channel.
    return [ctx.op(PReLU(), ctx.input(0), f32(ctx, [slope], suffix="slope"), suffix="prelu")]


@extractor("caffe", "ReLU6", produces=[Clamp])
def extract_relu6(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Fork layer: min(max(x, 0), 6)."""
    return [ctx.op(Clamp(min=0.0, max=ctx.attrs.float("relu6_param.n")), ctx.input(0), suffix="clamp")]


@extractor("caffe", "Clip", produces=[Clamp])
def extract_clip(node: Node, ctx: ExtractContext) -> list[OutPort]:
    low, high = ctx.attrs.float("clip_param.min"), ctx.attrs.float("clip_param.max")
    return [ctx.op(Clamp(min=low, max=high), ctx.input(0), suffix="clamp")]


@extractor("caffe", "PReLU", produces=[PReLU])
def extract_prelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Per-channel or shared slope."""
    layer = ctx.source_as(CaffeLayer)
    shared = ctx.attrs.bool("prelu_param.channel_shared")
    slope = layer.flat_blob(0, 1 if shared else None)
    return [ctx.op(PReLU(), ctx.input(0), ctx.const(slope, suffix="slope"), suffix="prelu")]


@extractor("caffe", "ELU", produces=[Elu])
def extract_elu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Elu(alpha=ctx.attrs.float("elu_param.alpha")), ctx.input(0), suffix="elu")]


@extractor("caffe", "Sigmoid", produces=[Sigmoid])
def extract_sigmoid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Sigmoid(), ctx.input(0), suffix="sigmoid")]


@extractor("caffe", "TanH", produces=[Tanh])
def extract_tanh(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Tanh(), ctx.input(0), suffix="tanh")]


@extractor("caffe", "AbsVal", produces=[Abs])
def extract_absval(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Abs(), ctx.input(0), suffix="abs")]


@extractor("caffe", "BNLL", produces=[SoftPlus])
def extract_bnll(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(SoftPlus(), ctx.input(0), suffix="softplus")]


@extractor("caffe", "Swish", produces=[Swish])
def extract_swish(node: Node, ctx: ExtractContext) -> list[OutPort]:
    beta = ctx.attrs.float("swish_param.beta")
    return [ctx.op(Swish(), ctx.input(0), f32(ctx, beta, suffix="beta"), suffix="swish")]


def _affine(ctx: ExtractContext, scale: float, shift: float) -> OutPort:
    """scale * x + shift, leaving out the identity steps."""
    out = ctx.input(0)
    if scale != 1:
        out = ctx.op(Multiply(), out, f32(ctx, scale, suffix="scale"), suffix="mul")
    if shift != 0:
        out = ctx.op(Add(), out, f32(ctx, shift, suffix="shift"), suffix="add")
    return out


@extractor("caffe", "Power", produces=[Multiply, Add, Power])
def extract_power(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(shift + scale * x) ^ power."""
    scale, shift = ctx.attrs.float("power_param.scale"), ctx.attrs.float("power_param.shift")
    power = ctx.attrs.float("power_param.power")
    out = _affine(ctx, scale, shift)
    if power != 1:
        out = ctx.op(Power(), out, f32(ctx, power, suffix="power"), suffix="pow")
    return [out]


@extractor("caffe", "Exp", produces=[Multiply, Add, Exp])
def extract_exp(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """base ^ (shift + scale * x); base -1 means e."""
    base = ctx.attrs.float("exp_param.base")
    log_base = 1.0 if base == -1 else math.log(base)
    scale, shift = ctx.attrs.float("exp_param.scale"), ctx.attrs.float("exp_param.shift")
    return [ctx.op(Exp(), _affine(ctx, scale * log_base, shift * log_base), suffix="exp")]


@extractor("caffe", "Log", produces=[Multiply, Add, Log])
def extract_log(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """log_base(shift + scale * x); base -1 means e."""
    base = ctx.attrs.float("log_param.base")
    scale, shift = ctx.attrs.float("log_param.scale"), ctx.attrs.float("log_param.shift")
    out = ctx.op(Log(), _affine(ctx, scale, shift), suffix="log")
    if base != -1:
        out = ctx.op(Multiply(), out, f32(ctx, 1.0 / math.log(base), suffix="inv_log_base"), suffix="rebase")
    return [out]


@extractor("caffe", "Threshold", produces=[Greater, Convert])
def extract_threshold(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """1 where x > threshold, else 0."""
    t = ctx.attrs.float("threshold_param.threshold")
    above = ctx.op(Greater(), ctx.input(0), f32(ctx, t, suffix="threshold"), suffix="greater")
    return [ctx.op(Convert(destination_type=ElementType.f32), above, suffix="convert")]


@extractor("caffe", "Softmax", produces=[SoftMax])
def extract_softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Any ``axis``."""
    return [ctx.op(SoftMax(axis=ctx.attrs.int("softmax_param.axis")), ctx.input(0), suffix="softmax")]


@extractor("caffe", "Dropout")
def extract_dropout(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Identity at inference (Caffe scales while training)."""
    # Caffe scales at training time, so inference passes the input through.
    return [ctx.input(0)]


@extractor("caffe", "Split")
def extract_split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Identity: every top is the input."""
    return [ctx.input(0)] * len(ctx.attrs.strs("top"))


@extractor("caffe", "Silence")
def extract_silence(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return []

