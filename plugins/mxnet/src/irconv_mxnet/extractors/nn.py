"""Convolution, Deconvolution, FullyConnected and Pooling."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor

from irconv_mxnet.extractors._common import (
    bad,
    channel_shaped,
    flag,
    i64,
    integer,
    ints,
    like_const,
    mx_op,
    number,
    port_value,
    rank,
    text,
)

_CHANNELS_FIRST = ("NCW", "NCHW", "NCDHW")


class _Window:
    """MXNet's window attributes: kernel, stride, dilate, pad (defaults 1, 1, 0)."""

    def __init__(self, ctx: ExtractContext, spatial: int) -> None:
        self.kernel = ints(ctx, "kernel", length=spatial)
        self.strides = ints(ctx, "stride", (1,) * spatial, spatial) or (1,) * spatial
        self.dilations = ints(ctx, "dilate", (1,) * spatial, spatial) or (1,) * spatial
        self.pads = ints(ctx, "pad", (0,) * spatial, spatial) or (0,) * spatial


def _check_layout(ctx: ExtractContext) -> None:
    layout = text(ctx, "layout", "NCHW")
    if layout not in _CHANNELS_FIRST:
        raise bad(ctx, "layout", layout, "only channels-first layouts (NCW, NCHW, NCDHW) are supported")


def _spatial(ctx: ExtractContext) -> int:
    kernel = ctx.attr("kernel", None)
    if kernel is not None:
        return len(ints(ctx, "kernel"))
    return rank(ctx, 0) - 2


def _grouped(ctx: ExtractContext, weights: OutPort, group: int) -> OutPort:
    """[O, I/g, k...] -> [g, O/g, I/g, k...]."""
    from irconv_opset import Reshape

    value = port_value(weights)
    if value is not None:
        return ctx.const(value.reshape((group, -1) + value.shape[1:]), suffix="weights")
    shape = weights.data.shape
    if shape is None or any(d is None for d in shape[1:]):
        raise bad(ctx, "num_group", group, "grouped weights need a known shape")
    return ctx.op(Reshape(special_zero=False), weights, i64(ctx, [group, -1, *shape[1:]]), suffix="weights")


def _bias(ctx: ExtractContext, out: OutPort, spatial: int) -> OutPort:
    from irconv_opset import Add

    if flag(ctx, "no_bias", ctx.source_op.op_type == "Deconvolution") or not ctx.has_input(2):
        return out
    bias = channel_shaped(ctx, ctx.input(2), 1, spatial + 2, "bias")
    return ctx.op(Add(), out, bias, suffix="add_bias")


def convolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Convolution, GroupConvolution

    _check_layout(ctx)
    spatial = _spatial(ctx)
    w = _Window(ctx, spatial)
    group = integer(ctx, "num_group", 1)
    common = dict(strides=w.strides, dilations=w.dilations, pads_begin=w.pads, pads_end=w.pads, auto_pad="explicit")
    if group == 1:
        out = ctx.op(Convolution(**common), ctx.input(0), ctx.input(1), suffix="conv")
    else:
        out = ctx.op(GroupConvolution(**common), ctx.input(0), _grouped(ctx, ctx.input(1), group), suffix="conv")
    return [_bias(ctx, out, spatial)]


def deconvolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Weights [C_in, C_out/g, k...]; ``target_shape`` chooses pad/adj as MXNet does."""
    from irconv_opset import ConvolutionBackpropData, GroupConvolutionBackpropData

    _check_layout(ctx)
    spatial = _spatial(ctx)
    w = _Window(ctx, spatial)
    group = integer(ctx, "num_group", 1)
    adj = ints(ctx, "adj", (0,) * spatial, spatial) or (0,) * spatial
    pads = w.pads
    target = ints(ctx, "target_shape", ())
    if target and any(target):
        shape = ctx.input_shape(0)
        sizes = [d for d in (shape or ())[2:] if d is not None]
        if len(sizes) != spatial:
            raise bad(ctx, "target_shape", target, "needs static input spatial sizes")
        new_pads, new_adj = [], []
        for i in range(spatial):
            full = w.strides[i] * (sizes[i] - 1) + w.dilations[i] * (w.kernel[i] - 1) + 1
            total = full - target[i]
            new_adj.append(total % 2)
            new_pads.append((total + 1) // 2)
        pads, adj = tuple(new_pads), tuple(new_adj)
    common = dict(strides=w.strides, dilations=w.dilations, pads_begin=pads, pads_end=pads, auto_pad="explicit",
                  output_padding=adj)
    if group == 1:
        out = ctx.op(ConvolutionBackpropData(**common), ctx.input(0), ctx.input(1), suffix="deconv")
    else:
        weights = _grouped(ctx, ctx.input(1), group)
        out = ctx.op(GroupConvolutionBackpropData(**common), ctx.input(0), weights, suffix="deconv")
    return [_bias(ctx, out, spatial)]


def fully_connected(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """flatten=True: x as [N, -1] @ W^T + b; flatten=False: over the last axis."""
    from irconv_opset import Add, MatMul, Reshape

    x = ctx.input(0)
    if flag(ctx, "flatten", True) and rank(ctx, 0) != 2:
        x = ctx.op(Reshape(special_zero=True), x, i64(ctx, [0, -1]), suffix="flatten")
    out = ctx.op(MatMul(transpose_a=False, transpose_b=True), x, ctx.input(1), suffix="matmul")
    if not flag(ctx, "no_bias", False) and ctx.has_input(2):
        out = ctx.op(Add(), out, ctx.input(2), suffix="add_bias")
    return [out]


def pooling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    _check_layout(ctx)
    pool_type = text(ctx, "pool_type", "max")
    if pool_type not in ("max", "avg", "sum", "lp"):
        raise bad(ctx, "pool_type", pool_type, "expected max, avg, sum or lp")
    if flag(ctx, "global_pool", False):
        return [_global_pool(ctx, pool_type)]
    spatial = _spatial(ctx)
    w = _Window(ctx, spatial)
    convention = text(ctx, "pooling_convention", "valid")
    if convention not in ("valid", "full"):
        raise bad(ctx, "pooling_convention", convention, "only valid and full are supported")
    rounding = "ceil" if convention == "full" else "floor"
    x = ctx.input(0)
    if pool_type == "max":
        from irconv_opset import MaxPool

        op = MaxPool(strides=w.strides, dilations=(1,) * spatial, pads_begin=w.pads, pads_end=w.pads,
                     kernel=w.kernel, rounding_type=rounding, auto_pad="explicit")
        return [ctx.add(op, [x], "pool").out_port(0)]
    if pool_type == "lp":
        return [_lp_pool(ctx, x, w, rounding)]
    include_pad = flag(ctx, "count_include_pad", True)
    if pool_type == "sum":
        include_pad = True
    out = _avg_pool(ctx, x, w, rounding, include_pad)
    if pool_type == "sum":
        from irconv_opset import Multiply

        out = ctx.op(Multiply(), out, like_const(ctx, float(np.prod(w.kernel)), x, "window"), suffix="sum")
    return [out]


def _avg_pool(ctx: ExtractContext, x: OutPort, w: _Window, rounding: str, include_pad: bool) -> OutPort:
    """MXNet counts padding cells but not cells a ``full`` window reaches past the padding:
    pad explicitly and exclude only those."""
    from irconv_opset import AvgPool, Pad

    spatial = len(w.kernel)
    if include_pad and rounding == "ceil" and any(w.pads):
        padded = ctx.op(Pad(pad_mode="constant"), x, i64(ctx, [0, 0, *w.pads]), i64(ctx, [0, 0, *w.pads]),
                        like_const(ctx, 0, x, "zero"), suffix="pad")
        op = AvgPool(strides=w.strides, pads_begin=(0,) * spatial, pads_end=(0,) * spatial, kernel=w.kernel,
                     rounding_type=rounding, auto_pad="explicit", exclude_pad=True)
        return ctx.op(op, padded, suffix="pool")
    op = AvgPool(strides=w.strides, pads_begin=w.pads, pads_end=w.pads, kernel=w.kernel, rounding_type=rounding,
                 auto_pad="explicit", exclude_pad=not include_pad)
    return ctx.op(op, x, suffix="pool")


def _lp_pool(ctx: ExtractContext, x: OutPort, w: _Window, rounding: str) -> OutPort:
    """(sum |x|^p)^(1/p) over each window."""
    from irconv_opset import Abs, Multiply, Power

    p = number(ctx, "p_value", 2)
    powered = ctx.op(Power(), ctx.op(Abs(), x, suffix="abs"), like_const(ctx, p, x, "p"), suffix="pow")
    avg = _avg_pool(ctx, powered, w, rounding, True)
    total = ctx.op(Multiply(), avg, like_const(ctx, float(np.prod(w.kernel)), x, "window"), suffix="sum")
    return ctx.op(Power(), total, like_const(ctx, 1.0 / p, x, "root"))


def _global_pool(ctx: ExtractContext, pool_type: str) -> OutPort:
    from irconv_opset import Abs, Power, ReduceMax, ReduceMean, ReduceSum

    x = ctx.input(0)
    axes = i64(ctx, list(range(2, rank(ctx, 0))), "axes")
    if pool_type == "max":
        return ctx.op(ReduceMax(keep_dims=True), x, axes)
    if pool_type == "avg":
        return ctx.op(ReduceMean(keep_dims=True), x, axes)
    if pool_type == "sum":
        return ctx.op(ReduceSum(keep_dims=True), x, axes)
    p = number(ctx, "p_value", 2)
    powered = ctx.op(Power(), ctx.op(Abs(), x, suffix="abs"), like_const(ctx, p, x, "p"), suffix="pow")
    total = ctx.op(ReduceSum(keep_dims=True), powered, axes, suffix="sum")
    return ctx.op(Power(), total, like_const(ctx, 1.0 / p, x, "root"))


def extractors() -> list[Extractor]:
    return [
        *mx_op("Convolution", convolution, "Convolution, GroupConvolution"),
        *mx_op("Convolution_v1", convolution, "Convolution, GroupConvolution"),
        *mx_op("Deconvolution", deconvolution, "ConvolutionBackpropData, GroupConvolutionBackpropData"),
        *mx_op("FullyConnected", fully_connected, "MatMul, Add"),
        *mx_op(("Pooling", "Pooling_v1"), pooling, "MaxPool, AvgPool, ReduceMean, ReduceMax"),
    ]
