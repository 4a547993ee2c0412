"""Normalizations: BatchNormalization, InstanceNormalization, LayerNormalization, GroupNormalization,
LRN, LpNormalization."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import (
    LRN,
    Add,
    BatchNormInference,
    Concat,
    Divide,
    Equal,
    GroupNormalization,
    Multiply,
    Range,
    ReduceL1,
    ReduceL2,
    ReduceMean,
    Reshape,
    Select,
    ShapeOf,
    Sqrt,
    Squeeze,
    Subtract,
    Tile,
    Unsqueeze,
)
from irconv_opset.build import axes_from
from irconv_opset.lowering.normalization import NORMALIZED_OPS, Affine, normalized

from irconv_onnx.extractors._optional import HANDLED, with_defaults


@extractor("onnx", "BatchNormalization", produces=[BatchNormInference, Concat, ReduceMean, Subtract, Multiply, Sqrt, Add,
                            Divide, Squeeze, Unsqueeze, ShapeOf, Range])
def _batch_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    if a.int("training_mode", 0):
        return _batch_norm_training(node, ctx)
    eps = a.float("epsilon", 1e-5)
    inputs = [ctx.input(i) for i in range(5)]
    out = ctx.op(BatchNormInference(epsilon=eps), *inputs)
    return [out]


def _batch_norm_training(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Batch statistics normalize; running statistics are blended with ``momentum``."""
    a = ctx.attrs
    eps, momentum = a.float("epsilon", 1e-5), a.float("momentum", 0.9)
    x = ctx.input(0)
    axes = ctx.op(Concat(axis=0), i64(ctx, [0]), axes_from(ctx, x, 2), suffix="axes")
    mean = ctx.op(ReduceMean(keep_dims=True), x, axes, suffix="mean")
    centered = ctx.op(Subtract(), x, mean, suffix="centered")
    var = ctx.op(ReduceMean(keep_dims=True), ctx.op(Multiply(), centered, centered, suffix="sq"), axes, suffix="var")
    std = ctx.op(Sqrt(), ctx.op(Add(), var, const_like(ctx, eps, x, "eps"), suffix="var_eps"), suffix="std")
    y = ctx.op(Divide(), centered, std, suffix="normalized")
    y = ctx.op(Multiply(), y, _channel_vector(ctx, ctx.input(1), x), suffix="scaled")
    y = ctx.op(Add(), y, _channel_vector(ctx, ctx.input(2), x), suffix="shifted")

    def running(stat: OutPort, idx: int, name: str) -> OutPort:
        flat = ctx.op(Squeeze(), stat, axes, suffix=f"{name}_flat")
        old = ctx.op(Multiply(), ctx.input(idx), const_like(ctx, momentum, x, "momentum"), suffix=f"{name}_old")
        new = ctx.op(Multiply(), flat, const_like(ctx, 1 - momentum, x, "rest"), suffix=f"{name}_new")
        return ctx.op(Add(), old, new, suffix=f"running_{name}")

    outputs = [y, running(mean, 3, "mean"), running(var, 4, "var")]
    return outputs[: len(node.out_ports())]


def _channel_vector(ctx: ExtractContext, port: OutPort, data: OutPort) -> OutPort:
    """[C] -> [C, 1, ..., 1] so it broadcasts against [N, C, spatial...]."""
    rank = ctx.input_rank(0)
    if rank is None:

        raise_rank = ctx.attrs
        raise raise_rank.bad("input", "dynamic rank", "the data rank must be known")
    return ctx.op(Unsqueeze(), port, i64(ctx, list(range(1, rank - 1))), suffix="per_channel")


@extractor("onnx", "InstanceNormalization", produces=[*NORMALIZED_OPS])
def _instance_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = ctx.input_rank(0)
    if rank is None:
        raise ctx.attrs.bad("input", "dynamic rank", "the data rank must be known")
    affine = Affine(scale=ctx.input(1), shift=ctx.input(2), axis=1, rank=rank)
    return [normalized(ctx, ctx.input(0), range(2, rank), ctx.attrs.float("epsilon", 1e-5), affine)]


@extractor("onnx", "LayerNormalization", versions=(17, None), produces=[*NORMALIZED_OPS, ReduceMean, Subtract, Sqrt, Divide, Range, ShapeOf, Squeeze])
@with_defaults({2: HANDLED})
def _layer_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MVN over axes [axis..] then scale and bias; Mean/InvStdDev outputs computed when used."""
    a = ctx.attrs
    axis, eps = a.int("axis", -1), a.float("epsilon", 1e-5)
    x = ctx.input(0)
    axes = axes_from(ctx, x, axis)
    outputs = node.out_ports()
    extra = [p for p in outputs[1:] if p.get_destinations() or p.data.names]
    shift = ctx.input(2) if ctx.has_input(2) else None
    if not extra:
        return [normalized(ctx, x, axes, eps, Affine(scale=ctx.input(1), shift=shift))]
    mean = ctx.op(ReduceMean(keep_dims=True), x, axes, suffix="mean")
    centered = ctx.op(Subtract(), x, mean, suffix="centered")
    var = ctx.op(ReduceMean(keep_dims=True), ctx.op(Multiply(), centered, centered, suffix="sq"), axes, suffix="var")
    std = ctx.op(Sqrt(), ctx.op(Add(), var, const_like(ctx, eps, x, "eps"), suffix="var_eps"), suffix="std")
    inv = ctx.op(Divide(), const_like(ctx, 1.0, x, "one"), std, suffix="inv_std")
    norm = ctx.op(Multiply(), centered, inv, suffix="normalized")
    y = ctx.op(Multiply(), norm, ctx.input(1), suffix="scale")
    if shift is not None:
        y = ctx.op(Add(), y, shift, suffix="bias")
    return [y, mean, inv][: len(outputs)]


@extractor("onnx", "GroupNormalization", versions=(18, 20), produces=[GroupNormalization, Unsqueeze, Tile, Reshape])
def group_norm_v18(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Before opset 21 scale and bias are per group: repeated per channel."""
    a = ctx.attrs
    groups = a.int("num_groups")
    shape = ctx.input_shape(0)
    if shape is None or shape[1] is None:
        raise a.bad("num_groups", groups, "per-group scale (opset 18) needs a static channel count")
    per = shape[1] // groups

    def repeat(port: OutPort, name: str) -> OutPort:
        col = ctx.op(Unsqueeze(), port, i64(ctx, [1]), suffix=f"{name}_col")
        tiled = ctx.op(Tile(), col, i64(ctx, [1, per]), suffix=f"{name}_tiled")
        return ctx.op(Reshape(special_zero=False), tiled, i64(ctx, [-1]), suffix=name)

    return [_group_norm(ctx, repeat(ctx.input(1), "scale"), repeat(ctx.input(2), "bias"))]


@extractor("onnx", "GroupNormalization", versions=(21, None), produces=[GroupNormalization])
def group_norm_v21(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_group_norm(ctx, ctx.input(1), ctx.input(2))]


def _group_norm(ctx: ExtractContext, scale: OutPort, bias: OutPort) -> OutPort:
    a = ctx.attrs
    op = GroupNormalization(num_groups=a.int("num_groups"), epsilon=a.float("epsilon", 1e-5))
    return ctx.op(op, ctx.input(0), scale, bias)


@extractor("onnx", "LRN", produces=[LRN])
def _lrn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    op = LRN(alpha=a.float("alpha", 1e-4), beta=a.float("beta", 0.75), bias=a.float("bias", 1.0), size=a.int("size"))
    return [ctx.op(op, ctx.input(0), i64(ctx, [1], "axes"))]


@extractor("onnx", "LpNormalization", produces=[ReduceL1, ReduceL2, Divide, Equal, Select])
def _lp_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    p, axis = a.int("p", 2), a.int("axis", -1)
    if p not in (1, 2):
        raise a.bad("p", p, "only p = 1 or 2")
    x = ctx.input(0)
    norm = ctx.op((ReduceL1 if p == 1 else ReduceL2)(keep_dims=True), x, i64(ctx, [axis]), suffix="norm")
    zero = const_like(ctx, 0, x, "zero")
    is_zero = ctx.op(Equal(), norm, zero, suffix="is_zero")
    return [ctx.op(Select(), is_zero, zero, ctx.op(Divide(), x, norm, suffix="divided"))]
