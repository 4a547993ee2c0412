"""Convolution, Deconvolution, FullyConnected and Pooling."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor, i64, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import (
    Abs,
    Add,
    AvgPool,
    Convolution,
    ConvolutionBackpropData,
    GroupConvolution,
    GroupConvolutionBackpropData,
    MatMul,
    MaxPool,
    Multiply,
    Pad,
    Power,
    ReduceMax,
    ReduceMean,
    ReduceSum,
    Reshape,
)
from irconv_opset.build import along_axis

_CHANNELS_FIRST = ("NCW", "NCHW", "NCDHW")


class _Window:
    """MXNet's window attributes: kernel, stride, dilate, pad (defaults 1, 1, 0)."""

    def __init__(self, ctx: ExtractContext, spatial: int) -> None:
        self.kernel = ctx.attrs.ints("kernel", length=spatial)
        self.strides = ctx.attrs.ints("stride", [1] * spatial, length=spatial)
        self.dilations = ctx.attrs.ints("dilate", [1] * spatial, length=spatial)
        self.pads = ctx.attrs.ints("pad", [0] * spatial, length=spatial)


def _check_layout(ctx: ExtractContext) -> None:
    ctx.attrs.choice("layout", _CHANNELS_FIRST, "NCHW")  # channels-last layouts are not supported


def _spatial(ctx: ExtractContext) -> int:
    if "kernel" in ctx.attrs:
        return len(ctx.attrs.ints("kernel"))
    return require_rank(ctx) - 2


def _grouped(ctx: ExtractContext, group: int) -> OutPort:
    """The weights (input 1), [O, I/g, k...] -> [g, O/g, I/g, k...]."""
    weights = ctx.input(1)
    value = ctx.input_value(1)
    if value is not None:
        return ctx.const(value.reshape((group, -1) + value.shape[1:]), suffix="weights")
    shape = weights.data.shape
    if shape is None or any(d is None for d in shape[1:]):
        raise ctx.attrs.bad("num_group", group, "grouped weights need a known shape")
    return ctx.op(Reshape(special_zero=False), weights, i64(ctx, [group, -1, *shape[1:]]), suffix="weights")


def _bias(ctx: ExtractContext, out: OutPort, spatial: int) -> OutPort:
    if ctx.attrs.bool("no_bias", ctx.source_op.op_type == "Deconvolution") or not ctx.has_input(2):
        return out
    bias = along_axis(ctx, ctx.input(2), 1, spatial + 2, "bias")
    return ctx.op(Add(), out, bias, suffix="add_bias")


def convolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    _check_layout(ctx)
    spatial = _spatial(ctx)
    w = _Window(ctx, spatial)
    group = ctx.attrs.int("num_group", 1)
    common = dict(strides=w.strides, dilations=w.dilations, pads_begin=w.pads, pads_end=w.pads, auto_pad="explicit")
    if group == 1:
        out = ctx.op(Convolution(**common), ctx.input(0), ctx.input(1), suffix="conv")
    else:
        out = ctx.op(GroupConvolution(**common), ctx.input(0), _grouped(ctx, group), suffix="conv")
    return [_bias(ctx, out, spatial)]


def deconvolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Weights [C_in, C_out/g, k...]; ``target_shape`` chooses pad/adj as MXNet does."""
    _check_layout(ctx)
    spatial = _spatial(ctx)
    w = _Window(ctx, spatial)
    group = ctx.attrs.int("num_group", 1)
    adj = ctx.attrs.ints("adj", [0] * spatial, length=spatial)
    pads = w.pads
    target = ctx.attrs.ints("target_shape", [])
    if target and any(target):
        shape = ctx.input_shape(0)
        sizes = [d for d in (shape or ())[2:] if d is not None]
        if len(sizes) != spatial:
            raise ctx.attrs.bad("target_shape", target, "needs static input spatial sizes")
        new_pads, new_adj = [], []
        for i in range(spatial):
            full = w.strides[i] * (sizes[i] - 1) + w.dilations[i] * (w.kernel[i] - 1) + 1
            total = full - target[i]
            new_adj.append(total % 2)
            new_pads.append((total + 1) // 2)
        pads, adj = new_pads, new_adj
    common = dict(strides=w.strides, dilations=w.dilations, pads_begin=pads, pads_end=pads, auto_pad="explicit",
                  output_padding=adj)
    if group == 1:
        out = ctx.op(ConvolutionBackpropData(**common), ctx.input(0), ctx.input(1), suffix="deconv")
    else:
        weights = _grouped(ctx, group)
        out = ctx.op(GroupConvolutionBackpropData(**common), ctx.input(0), weights, suffix="deconv")
    return [_bias(ctx, out, spatial)]


def fully_connected(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """flatten=True: x as [N, -1] @ W^T + b; flatten=False: over the last axis."""
    x = ctx.input(0)
    if ctx.attrs.bool("flatten", True) and require_rank(ctx) != 2:
        x = ctx.op(Reshape(special_zero=True), x, i64(ctx, [0, -1]), suffix="flatten")
    out = ctx.op(MatMul(transpose_a=False, transpose_b=True), x, ctx.input(1), suffix="matmul")
    if not ctx.attrs.bool("no_bias", False) and ctx.has_input(2):
        out = ctx.op(Add(), out, ctx.input(2), suffix="add_bias")
    return [out]


def pooling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    _check_layout(ctx)
    pool_type = ctx.attrs.choice("pool_type", ["max", "avg", "sum", "lp"], "max")
    if ctx.attrs.bool("global_pool", False):
        return [_global_pool(ctx, pool_type)]
    spatial = _spatial(ctx)
    w = _Window(ctx, spatial)
    convention = ctx.attrs.choice("pooling_convention", ["valid", "full"], "valid")
    rounding = "ceil" if convention == "full" else "floor"
    x = ctx.input(0)
    if pool_type == "max":
        op = MaxPool(strides=w.strides, dilations=[1] * spatial, pads_begin=w.pads, pads_end=w.pads,
                     kernel=w.kernel, rounding_type=rounding, auto_pad="explicit")
        return [ctx.add(op, [x], "pool").out_port(0)]
    if pool_type == "lp":
        return [_lp_pool(ctx, x, w, rounding)]
    include_pad = ctx.attrs.bool("count_include_pad", True)
    if pool_type == "sum":
        include_pad = True
    out = _avg_pool(ctx, x, w, rounding, include_pad)
    if pool_type == "sum":
        out = ctx.op(Multiply(), out, const_like(ctx, float(np.prod(w.kernel)), x, "window"), suffix="sum")
    return [out]


def _avg_pool(ctx: ExtractContext, x: OutPort, w: _Window, rounding: str, include_pad: bool) -> OutPort:
    """MXNet counts padding cells but not cells a ``full`` window reaches past the padding:
    pad explicitly and exclude only those."""
    spatial = len(w.kernel)
    if include_pad and rounding == "ceil" and any(w.pads):
        padded = ctx.op(Pad(pad_mode="constant"), x, i64(ctx, [0, 0, *w.pads]), i64(ctx, [0, 0, *w.pads]),
                        const_like(ctx, 0, x, "zero"), suffix="pad")
        op = AvgPool(strides=w.strides, pads_begin=[0] * spatial, pads_end=[0] * spatial, kernel=w.kernel,
                     rounding_type=rounding, auto_pad="explicit", exclude_pad=True)
        return ctx.op(op, padded, suffix="pool")
    op = AvgPool(strides=w.strides, pads_begin=w.pads, pads_end=w.pads, kernel=w.kernel, rounding_type=rounding,
                 auto_pad="explicit", exclude_pad=not include_pad)
    return ctx.op(op, x, suffix="pool")


def _lp_pool(ctx: ExtractContext, x: OutPort, w: _Window, rounding: str) -> OutPort:
    """(sum |x|^p)^(1/p) over each window."""
    p = ctx.attrs.float("p_value", 2)
    powered = ctx.op(Power(), ctx.op(Abs(), x, suffix="abs"), const_like(ctx, p, x, "p"), suffix="pow")
    avg = _avg_pool(ctx, powered, w, rounding, True)
    total = ctx.op(Multiply(), avg, const_like(ctx, float(np.prod(w.kernel)), x, "window"), suffix="sum")
    return ctx.op(Power(), total, const_like(ctx, 1.0 / p, x, "root"))


def _global_pool(ctx: ExtractContext, pool_type: str) -> OutPort:
    x = ctx.input(0)
    axes = i64(ctx, list(range(2, require_rank(ctx))), "axes")
    if pool_type == "max":
        return ctx.op(ReduceMax(keep_dims=True), x, axes)
    if pool_type == "avg":
        return ctx.op(ReduceMean(keep_dims=True), x, axes)
    if pool_type == "sum":
        return ctx.op(ReduceSum(keep_dims=True), x, axes)
    p = ctx.attrs.float("p_value", 2)
    powered = ctx.op(Power(), ctx.op(Abs(), x, suffix="abs"), const_like(ctx, p, x, "p"), suffix="pow")
    total = ctx.op(ReduceSum(keep_dims=True), powered, axes, suffix="sum")
    return ctx.op(Power(), total, const_like(ctx, 1.0 / p, x, "root"))



CONVOLUTION = aliases("mxnet", ["Convolution", "Convolution_v1"], convolution, produces=[Convolution, GroupConvolution, Reshape, Add])
DECONVOLUTION = extractor("mxnet", "Deconvolution", deconvolution,
                          produces=[ConvolutionBackpropData, GroupConvolutionBackpropData, Reshape, Add])
FULLY_CONNECTED = extractor("mxnet", "FullyConnected", fully_connected, produces=[Reshape, MatMul, Add])
POOLING = aliases("mxnet", ["Pooling", "Pooling_v1"], pooling,
                  produces=[MaxPool, AvgPool, Pad, Abs, Power, Multiply, ReduceMean, ReduceMax, ReduceSum])
