"""Convolution, Deconvolution, FullyConnected and Pooling."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor, i64, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    MatMul,
    Multiply,
    Pad,
    Reshape,
)
from irconv_opset.lowering.convolution import (
    CHANNEL_BIAS_OPS,
    CONVOLUTION_BACKPROP_OPS,
    CONVOLUTION_OPS,
    PadSplit,
    Window,
    channel_bias,
    convolution_backprop,
    padding_for_output_size,
)
from irconv_opset.lowering.convolution import convolution as forward_convolution
from irconv_opset.lowering.pooling import (
    AVG_POOL_OPS,
    GLOBAL_POOL_OPS,
    LP_POOL_OPS,
    MAX_POOL_OPS,
    GlobalPool,
    PoolWindow,
    avg_pool,
    global_pool,
    lp_pool,
    max_pool,
)

_CHANNELS_FIRST = ("NCW", "NCHW", "NCDHW")


def _window(ctx: ExtractContext, spatial: int) -> Window:
    """MXNet's window attributes: stride, dilate, pad (defaults 1, 1, 0), symmetric pads."""
    return Window.of(ctx.attrs.ints("stride", [1] * spatial, length=spatial),
                     ctx.attrs.ints("dilate", [1] * spatial, length=spatial),
                     ctx.attrs.ints("pad", [0] * spatial, length=spatial))


def _kernel(ctx: ExtractContext, spatial: int) -> tuple[int, ...]:
    return tuple(ctx.attrs.ints("kernel", length=spatial))


def _check_layout(ctx: ExtractContext) -> None:
    ctx.attrs.choice("layout", _CHANNELS_FIRST, "NCHW")  # channels-last layouts are not supported


def _spatial(ctx: ExtractContext) -> int:
    if "kernel" in ctx.attrs:
        return len(ctx.attrs.ints("kernel"))
    return require_rank(ctx) - 2


def _bias(ctx: ExtractContext, out: OutPort, spatial: int) -> OutPort:
    if ctx.attrs.bool("no_bias", ctx.source_op.op_type == "Deconvolution") or not ctx.has_input(2):
        return out
    return channel_bias(ctx, out, ctx.input(2), spatial + 2)


def convolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    _check_layout(ctx)
    spatial = _spatial(ctx)
    out = forward_convolution(ctx, ctx.input(0), ctx.input(1), _window(ctx, spatial), ctx.attrs.int("num_group", 1))
    return [_bias(ctx, out, spatial)]


@extractor("mxnet", "Deconvolution", produces=[*CONVOLUTION_BACKPROP_OPS, *CHANNEL_BIAS_OPS])
def deconvolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Weights [C_in, C_out/g, k...]; ``target_shape`` chooses pad/adj as MXNet does: equal
    pads rounded up, the odd cell given back as ``adj``."""
    _check_layout(ctx)
    spatial = _spatial(ctx)
    w = _window(ctx, spatial)
    adj = ctx.attrs.ints("adj", [0] * spatial, length=spatial)
    target = ctx.attrs.ints("target_shape", [])
    if target and any(target):
        shape = ctx.input_shape(0)
        sizes = [d for d in (shape or ())[2:] if d is not None]
        if len(sizes) != spatial:
            raise ctx.attrs.bad("target_shape", target, "needs static input spatial sizes")
        padding = padding_for_output_size(sizes, _kernel(ctx, spatial), w, target, PadSplit.SYMMETRIC)
        w = Window(w.strides, w.dilations, padding.pads_begin, padding.pads_end)
        adj = list(padding.output_padding)
    out = convolution_backprop(ctx, ctx.input(0), ctx.input(1), w, adj, ctx.attrs.int("num_group", 1))
    return [_bias(ctx, out, spatial)]


@extractor("mxnet", "FullyConnected", produces=[Reshape, MatMul, Add])
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
        axes = i64(ctx, list(range(2, require_rank(ctx))), "axes")
        return [global_pool(ctx, ctx.input(0), _GLOBAL[pool_type], axes, p=ctx.attrs.float("p_value", 2))]
    spatial = _spatial(ctx)
    convention = ctx.attrs.choice("pooling_convention", ["valid", "full"], "valid")
    w = PoolWindow(_kernel(ctx, spatial), _window(ctx, spatial), "ceil" if convention == "full" else "floor")
    x = ctx.input(0)
    if pool_type == "max":
        return [max_pool(ctx, x, w, index_type=ElementType.i64).out_port(0)]
    if pool_type == "lp":
        return [lp_pool(ctx, x, ctx.attrs.float("p_value", 2), w.size, lambda y: _avg_pool(ctx, y, w, True))]
    include_pad = ctx.attrs.bool("count_include_pad", True)
    if pool_type == "sum":
        include_pad = True
    out = _avg_pool(ctx, x, w, include_pad)
    if pool_type == "sum":
        out = ctx.op(Multiply(), out, const_like(ctx, float(w.size), x, "window"), suffix="sum")
    return [out]


_GLOBAL = {"max": GlobalPool.MAX, "avg": GlobalPool.AVG, "sum": GlobalPool.SUM, "lp": GlobalPool.LP}


def _avg_pool(ctx: ExtractContext, x: OutPort, w: PoolWindow, include_pad: bool) -> OutPort:
    """MXNet counts padding cells but not cells a ``full`` window reaches past the padding:
    pad explicitly and exclude only those."""
    pads = w.window.pads_begin
    if include_pad and w.rounding == "ceil" and any(pads):
        padded = ctx.op(Pad(pad_mode="constant"), x, i64(ctx, [0, 0, *pads]), i64(ctx, [0, 0, *pads]),
                        const_like(ctx, 0, x, "zero"), suffix="pad")
        unpadded = PoolWindow.of(w.kernel, w.window.strides, rounding=w.rounding)
        return avg_pool(ctx, padded, unpadded, exclude_pad=True)
    return avg_pool(ctx, x, w, exclude_pad=not include_pad)


CONVOLUTION = aliases("mxnet", ["Convolution", "Convolution_v1"], convolution,
                      produces=[*CONVOLUTION_OPS, *CHANNEL_BIAS_OPS])
POOLING = aliases("mxnet", ["Pooling", "Pooling_v1"], pooling,
                  produces=[*MAX_POOL_OPS, *AVG_POOL_OPS, *LP_POOL_OPS, *GLOBAL_POOL_OPS, Pad, Multiply])
