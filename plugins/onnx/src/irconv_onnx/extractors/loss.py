"""Losses: NegativeLogLikelihoodLoss (SoftmaxCrossEntropyLoss expands into it through its
ONNX function body)."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import (
    Broadcast,
    ConvertLike,
    Divide,
    Gather,
    GatherElements,
    Multiply,
    Negative,
    NotEqual,
    Range,
    ReduceSum,
    Select,
    ShapeOf,
    Squeeze,
    Unsqueeze,
)
from irconv_opset.build import all_axes

from irconv_onnx.extractors._optional import HANDLED, with_defaults


@extractor("onnx", "NegativeLogLikelihoodLoss", versions=(12, None), produces=[GatherElements, Multiply, ReduceSum, Broadcast, ConvertLike, Divide, Gather, Negative, NotEqual, Range, Select, ShapeOf, Squeeze, Unsqueeze])
@with_defaults({2: HANDLED})
def _nll(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """loss = -input[n, t, ...] * weight[t], zero where t == ignore_index; then none/sum/mean."""
    a = ctx.attrs
    reduction = a.choice("reduction", ["none", "sum", "mean"], "mean")
    scores, target = ctx.input(0), ctx.input(1)
    mask = None
    if "ignore_index" in a:
        ignore = ctx.op(ConvertLike(), i64(ctx, a.int("ignore_index"), "ignore"), target, suffix="ignore_index")
        mask = ctx.op(NotEqual(), target, ignore, suffix="kept")
        target = ctx.op(Select(), mask, target, ctx.op(ConvertLike(), i64(ctx, 0), target, suffix="zero_index"),
                        suffix="safe_target")
    picked = ctx.op(GatherElements(axis=1), scores, ctx.op(Unsqueeze(), target, i64(ctx, [1])), suffix="picked")
    picked = ctx.op(Squeeze(), picked, i64(ctx, [1]), suffix="picked_squeezed")
    loss = ctx.op(Negative(), picked, suffix="neg")
    weight: OutPort | None = None
    if ctx.has_input(2):
        weight = ctx.op(Gather(), ctx.input(2), target, i64(ctx, 0), suffix="weight")
    if mask is not None:
        kept = ctx.op(ConvertLike(), mask, scores, suffix="kept_float")
        weight = kept if weight is None else ctx.op(Multiply(), weight, kept, suffix="weight_kept")
    if weight is not None:
        loss = ctx.op(Multiply(), loss, weight, suffix="weighted")
    if reduction == "none":
        return [loss]
    total = ctx.op(ReduceSum(keep_dims=False), loss, all_axes(ctx, loss), suffix="sum")
    if reduction == "sum":
        return [total]
    if weight is None:
        ones = ctx.op(Broadcast(), const_like(ctx, 1, scores, "one"), ctx.op(ShapeOf(), picked), suffix="ones")
        count = ctx.op(ReduceSum(keep_dims=False), ones, all_axes(ctx, picked), suffix="count")
    else:
        count = ctx.op(ReduceSum(keep_dims=False), weight, all_axes(ctx, weight), suffix="weight_sum")
    return [ctx.op(Divide(), total, count)]
