"""The com.microsoft contrib ops exporters commonly emit: Gelu, FastGelu, BiasGelu, QuickGelu,
SkipLayerNormalization, FusedMatMul."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import MVN, Add, Divide, Gelu, MatMul, Multiply, ReduceMean, Sigmoid, Sqrt, Subtract

from irconv_onnx.extractors._optional import HANDLED, with_defaults

MS = "com.microsoft"


def _gelu(mode: str, node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Gelu(x [+ bias]); ``tanh`` is the approximation FastGelu uses."""
    x = ctx.input(0)
    if ctx.has_input(1):
        x = ctx.op(Add(), x, ctx.input(1), suffix="bias")
    return [ctx.op(Gelu(approximation_mode=mode), x)]


@extractor("onnx", "QuickGelu", domain=MS, produces=[Sigmoid, Multiply])
def _quick_gelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x * sigmoid(alpha * x)."""
    x = ctx.input(0)
    alpha = const_like(ctx, ctx.attrs.float("alpha", 1.702), x, "alpha")
    gate = ctx.op(Sigmoid(), ctx.op(Multiply(), x, alpha, suffix="scaled"), suffix="gate")
    return [ctx.op(Multiply(), x, gate)]


@extractor("onnx", "SkipLayerNormalization", domain=MS, produces=[Add, MVN, Multiply, Divide, ReduceMean, Sqrt, Subtract])
@with_defaults({3: HANDLED, 4: HANDLED})
def _skip_layer_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """LayerNorm(input + skip [+ bias]) over the last axis, times gamma plus beta.

    Outputs: the result, mean and inverse std-dev (when used), and the summed input.
    """
    eps = ctx.attrs.float("epsilon", 1e-12)
    total = ctx.op(Add(), ctx.input(0), ctx.input(1), suffix="skip")
    if ctx.has_input(4):
        total = ctx.op(Add(), total, ctx.input(4), suffix="bias")
    axes = i64(ctx, [-1], "axes")
    outputs = node.out_ports()
    stats_used = any(p.get_destinations() or p.data.names for p in outputs[1:3])
    mean = inv = None
    if stats_used:
        mean = ctx.op(ReduceMean(keep_dims=True), total, axes, suffix="mean")
        centered = ctx.op(Subtract(), total, mean, suffix="centered")
        var = ctx.op(ReduceMean(keep_dims=True), ctx.op(Multiply(), centered, centered, suffix="sq"), axes,
                     suffix="var")
        std = ctx.op(Sqrt(), ctx.op(Add(), var, const_like(ctx, eps, total, "eps"), suffix="var_eps"), suffix="std")
        inv = ctx.op(Divide(), const_like(ctx, 1.0, total, "one"), std, suffix="inv_std")
        norm = ctx.op(Multiply(), centered, inv, suffix="normalized")
    else:
        norm = ctx.op(MVN(normalize_variance=True, eps=eps, eps_mode="inside_sqrt"), total, axes, suffix="mvn")
    y = ctx.op(Multiply(), norm, ctx.input(2), suffix="gamma")
    if ctx.has_input(3):
        y = ctx.op(Add(), y, ctx.input(3), suffix="beta")
    result: list[OutPort] = [y, mean or y, inv or y, total]
    return result[: len(outputs)]


@extractor("onnx", "FusedMatMul", domain=MS, produces=[MatMul, Multiply])
def _fused_mat_mul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    if a.int("transBatchA", 0) or a.int("transBatchB", 0):
        raise a.bad("transBatchA", 1, "batch transposition is not supported")
    out = ctx.op(MatMul(transpose_a=bool(a.int("transA", 0)), transpose_b=bool(a.int("transB", 0))),
                 ctx.input(0), ctx.input(1), suffix="matmul")
    alpha = a.float("alpha", 1.0)
    if alpha != 1.0:
        out = ctx.op(Multiply(), out, const_like(ctx, alpha, ctx.input(0), "alpha"), suffix="alpha")
    return [out]


@extractor("onnx", "Gelu", domain=MS, produces=[Gelu, Add])
def gelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _gelu("erf", node, ctx)


@extractor("onnx", "BiasGelu", domain=MS, produces=[Add, Gelu])
def bias_gelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _gelu("erf", node, ctx)


@extractor("onnx", "FastGelu", domain=MS, produces=[Add, Gelu])
@with_defaults({1: HANDLED})
def fast_gelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _gelu("tanh", node, ctx)
