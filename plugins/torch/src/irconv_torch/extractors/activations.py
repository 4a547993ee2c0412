"""Activation functions kept whole by the decomposition, and softmax."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, extractor, normalize_axis, require_rank, typed
from irconv.graph import Node, OutPort
from irconv_opset import Clamp, Convert, Elu, Gelu, LogSoftmax, Multiply, PReLU, SoftMax, SoftPlus
from irconv_opset.lowering.elementwise import Unary, unary

from irconv_torch.extractors._args import TORCH_2_5, cast, out_type, tensor


def _input(ctx: ExtractContext) -> OutPort:
    return cast(ctx, tensor(ctx, "self"), out_type(ctx))


@extractor("torch", "aten.gelu.default", versions=TORCH_2_5, produces=[Gelu, Convert])
def gelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    mode = ctx.attrs.choice("approximate", ["none", "tanh"], "none")
    return [ctx.op(Gelu(approximation_mode="erf" if mode == "none" else "tanh"), _input(ctx), suffix="op")]


#: aten activations that are one attribute-free opset op on the input in the result's type.
_PLAIN = {"aten.silu.default": Unary.SWISH, "aten.hardswish.default": Unary.HSWISH,
          "aten.hardsigmoid.default": Unary.HSIGMOID, "aten.mish.default": Unary.MISH}


def plain(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [unary(ctx, _PLAIN[ctx.source_op.op_type], _input(ctx), "op")]


plains = [record for name, kind in _PLAIN.items()
          for record in aliases("torch", [name], plain, versions=TORCH_2_5, produces=[kind.op, Convert])]


@extractor("torch", "aten.hardtanh.default", versions=TORCH_2_5, produces=[Clamp, Convert])
def hardtanh(node: Node, ctx: ExtractContext) -> list[OutPort]:
    low, high = ctx.attrs.float("min_val", -1.0), ctx.attrs.float("max_val", 1.0)
    return [ctx.op(Clamp(min=low, max=high), _input(ctx), suffix="op")]


@extractor("torch", "aten.relu6.default", versions=TORCH_2_5, produces=[Clamp, Convert])
def relu6(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Clamp(min=0.0, max=6.0), _input(ctx), suffix="op")]


@extractor("torch", "aten.leaky_relu.default", versions=TORCH_2_5, produces=[PReLU, Convert])
def leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    port = _input(ctx)
    slope = typed(ctx, [ctx.attrs.float("negative_slope", 0.01)], port.data.element_type, suffix="slope")
    return [ctx.op(PReLU(), port, slope, suffix="op")]


@extractor("torch", "aten.elu.default", versions=TORCH_2_5, produces=[Elu, Multiply, Convert])
def elu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``scale * elu(input_scale * x, alpha)``."""
    port = _input(ctx)
    alpha, scale = ctx.attrs.float("alpha", 1.0), ctx.attrs.float("scale", 1.0)
    input_scale = ctx.attrs.float("input_scale", 1.0)
    if input_scale != 1.0:
        port = ctx.op(Multiply(), port, typed(ctx, input_scale, port.data.element_type, "input_scale"), suffix="scaled")
    port = ctx.op(Elu(alpha=alpha), port, suffix="op")
    if scale != 1.0:
        port = ctx.op(Multiply(), port, typed(ctx, scale, port.data.element_type, "scale"), suffix="scale")
    return [port]


@extractor("torch", "aten.softplus.default", versions=TORCH_2_5, produces=[SoftPlus, Multiply, Convert])
def softplus(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``log(1 + exp(beta x)) / beta``; torch's linear region above ``threshold`` (where the
    two agree within float precision for the default threshold 20) is not reproduced."""
    port = _input(ctx)
    beta = ctx.attrs.float("beta", 1.0)
    if beta == 1.0:
        return [ctx.op(SoftPlus(), port, suffix="op")]
    element_type = port.data.element_type
    scaled = ctx.op(Multiply(), port, typed(ctx, beta, element_type, "beta"), suffix="scaled")
    return [ctx.op(Multiply(), ctx.op(SoftPlus(), scaled, suffix="op"), typed(ctx, 1 / beta, element_type, "inv_beta"),
                   suffix="unscaled")]


def _softmax_axis(ctx: ExtractContext) -> int:
    return normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0))


def softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(SoftMax(axis=_softmax_axis(ctx)), _input(ctx), suffix="op")]


def log_softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(LogSoftmax(axis=_softmax_axis(ctx)), _input(ctx), suffix="op")]


softmaxes = aliases("torch", ["aten._softmax.default", "aten.softmax.int"], softmax, versions=TORCH_2_5,
                    produces=[SoftMax, Convert])
log_softmaxes = aliases("torch", ["aten._log_softmax.default", "aten.log_softmax.int"], log_softmax,
                        versions=TORCH_2_5, produces=[LogSoftmax, Convert])
