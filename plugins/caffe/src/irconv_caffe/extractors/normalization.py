"""BatchNorm, Scale, Bias, LRN, MVN and SSD's Normalize."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64, normalize_axis, per_axis, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import LRN, MVN, Add, Multiply, NormalizeL2, Reshape
from irconv_opset.lowering.normalization import FOLDED_BATCH_NORM_OPS, BatchStatistics, folded_batch_norm

from irconv_caffe.layer import CaffeLayer


@extractor("caffe", "BatchNorm", produces=[*FOLDED_BATCH_NORM_OPS])
def extract_batch_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """y = (x - mean/f) / sqrt(var/f + eps), with f Caffe's moving-average scale factor blob."""
    layer = ctx.source_as(CaffeLayer)
    shape = ctx.input_shape(0)
    rank = require_rank(ctx)
    channels = shape[1] if shape is not None and rank > 1 else None
    layer.require_blobs(3)
    mean = layer.blob(0, (channels,))
    var = layer.blob(1, (channels,))
    factor = float(layer.flat_blob(2, 1)[0])
    inv = 0.0 if factor == 0 else 1.0 / factor
    mean, var = mean.astype(np.float64) * inv, var.astype(np.float64) * inv
    stats = BatchStatistics(np.ones_like(mean), np.zeros_like(mean), mean, var)
    return [folded_batch_norm(ctx, ctx.input(0), stats, ctx.attrs.float("batch_norm_param.eps"), [1], rank)]


def _param_span(ctx: ExtractContext, axis: int, num_axes: int) -> tuple[int, tuple[int | None, ...]]:
    shape = ctx.input_shape(0)
    rank = require_rank(ctx)
    start = normalize_axis(ctx, axis, rank)
    end = rank if num_axes == -1 else start + num_axes
    if end > rank:
        raise ConversionError(f"{ctx.where()}: num_axes {num_axes} runs past rank {rank}")
    assert shape is not None
    return start, tuple(shape[start:end])


def _apply_along(ctx: ExtractContext, op: type, data: OutPort, values: np.ndarray, axis: int, suffix: str) -> OutPort:
    rank = require_rank(ctx)
    return ctx.op(op(), data, ctx.const(per_axis(values, axis, rank), suffix=f"{suffix}_value"), suffix=suffix)


@extractor("caffe", "Scale", produces=[Multiply, Add, Reshape])
def extract_scale(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Per-axis scale (and bias) from blobs or from a second input; axis and num_axes honoured."""
    layer = ctx.source_as(CaffeLayer)
    p = ctx.attrs.required("scale_param")
    if ctx.has_input(1):
        # The scale is a second input covering dims axis.. of the first.
        factor = _aligned_input(ctx, 1, p.axis)
        out = ctx.op(Multiply(), ctx.input(0), factor, suffix="mul")
        if p.bias_term:
            # The bias blob has the second input's shape.
            axis = normalize_axis(ctx, p.axis, require_rank(ctx))
            dims = ctx.input_shape(1)
            assert dims is not None
            out = _apply_along(ctx, Add, out, layer.blob(0, dims), axis, "bias")
        return [out]
    axis, dims = _param_span(ctx, p.axis, p.num_axes)
    out = _apply_along(ctx, Multiply, ctx.input(0), layer.blob(0, dims), axis, "mul")
    if p.bias_term:
        out = _apply_along(ctx, Add, out, layer.blob(1, dims), axis, "bias")
    return [out]


@extractor("caffe", "Bias", produces=[Add, Reshape])
def extract_bias(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Per-axis bias from a blob or from a second input."""
    layer = ctx.source_as(CaffeLayer)
    p = ctx.attrs.required("bias_param")
    if ctx.has_input(1):
        return [ctx.op(Add(), ctx.input(0), _aligned_input(ctx, 1, p.axis), suffix="add")]
    axis, dims = _param_span(ctx, p.axis, p.num_axes)
    return [_apply_along(ctx, Add, ctx.input(0), layer.blob(0, dims), axis, "add")]


def _aligned_input(ctx: ExtractContext, idx: int, axis: int) -> OutPort:
    """Input ``idx`` reshaped with trailing ones so it lines up with input 0 at ``axis``."""
    rank = require_rank(ctx)
    other = require_rank(ctx, idx)
    start = normalize_axis(ctx, axis, rank)
    trailing = rank - start - other
    if trailing == 0:
        return ctx.input(idx)
    target = i64(ctx, [0] * other + [1] * trailing, suffix="align_shape")
    return ctx.op(Reshape(special_zero=True), ctx.input(idx), target, suffix="align")


@extractor("caffe", "LRN", produces=[LRN])
def extract_lrn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ACROSS_CHANNELS and WITHIN_CHANNEL."""
    p = ctx.attrs.required("lrn_param")
    if p.norm_region == "ACROSS_CHANNELS":
        op = LRN(alpha=p.alpha, beta=p.beta, bias=p.k, size=p.local_size)
        axes = [1]
    else:
        # Caffe's within-channel LRN divides by (1 + alpha/n^2 * sum of squares)^beta.
        op = LRN(alpha=p.alpha, beta=p.beta, bias=1.0, size=p.local_size)
        axes = list(range(2, require_rank(ctx)))
    return [ctx.op(op, ctx.input(0), i64(ctx, axes, suffix="axes"), suffix="lrn")]


@extractor("caffe", "MVN", produces=[MVN])
def extract_mvn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Mean (and variance) normalisation, per channel or across channels; eps added to the std."""
    p = ctx.attrs.required("mvn_param")
    rank = require_rank(ctx)
    axes = list(range(1 if p.across_channels else 2, rank))
    # Caffe divides by (std + eps).
    op = MVN(normalize_variance=p.normalize_variance, eps=p.eps, eps_mode="outside_sqrt")
    return [ctx.op(op, ctx.input(0), i64(ctx, axes, suffix="axes"), suffix="mvn")]


@extractor("caffe", "Normalize", produces=[NormalizeL2, Multiply])
def extract_normalize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SSD's Normalize: L2-normalize over channels (or C,H,W), then scale per channel."""
    layer = ctx.source_as(CaffeLayer)
    p = ctx.attrs.required("norm_param")
    rank = require_rank(ctx)
    shape = ctx.input_shape(0)
    axes = list(range(1, rank)) if p.across_spatial else [1]
    out = ctx.op(NormalizeL2(eps=p.eps, eps_mode="add"), ctx.input(0), i64(ctx, axes, suffix="axes"), suffix="l2")
    channels = shape[1] if shape is not None else None
    scale = layer.flat_blob(0, 1 if p.channel_shared else channels)
    values = scale.reshape(()) if p.channel_shared else per_axis(scale, 1, rank)
    return [ctx.op(Multiply(), out, ctx.const(values, suffix="scale"), suffix="mul")]

