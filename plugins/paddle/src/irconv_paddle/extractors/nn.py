"""Convolutions, pooling, normalisation, matrix products and dropout."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor, i64, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import (
    AdaptiveAvgPool,
    AdaptiveMaxPool,
    BatchNormInference,
    DeformableConvolution,
    Gather,
    MatMul,
    Multiply,
    Reshape,
    ShapeOf,
    ShuffleChannels,
    Transpose,
)
from irconv_opset.build import axes_from, dims_of
from irconv_opset.lowering.convolution import (
    CONVOLUTION_BACKPROP_OPS,
    CONVOLUTION_OPS,
    Window,
    convolution,
    convolution_backprop,
)
from irconv_opset.lowering.normalization import NORMALIZED_OPS, Affine, normalized
from irconv_opset.lowering.pooling import (
    AVG_POOL_OPS,
    GLOBAL_POOL_OPS,
    MAX_POOL_OPS,
    GlobalPool,
    PoolWindow,
    avg_pool,
    global_pool,
    max_pool,
)

from irconv_paddle.extractors._common import arg, known_float, known_ints, x
from irconv_paddle.names import both

_CHANNELS_LAST = ("NHWC", "NDHWC", "NLC")
_AUTO_PADS = {"EXPLICIT": "explicit", "SAME": "same_upper", "VALID": "valid"}


def _channels_first(ctx: ExtractContext) -> None:
    layout = ctx.attrs.str("data_format", ctx.attrs.str("data_layout", "NCHW"))
    if layout in _CHANNELS_LAST:
        raise ctx.attrs.bad("data_format", layout, "only channels-first layouts (NCHW, NCDHW) are converted")


def _pads(ctx: ExtractContext, spatial: int) -> tuple[list[int], list[int]]:
    """``paddings`` as (begin, end): one per axis (symmetric) or begin/end pairs per axis."""
    pads = ctx.attrs.ints("paddings", [0] * spatial)
    if len(pads) == spatial:
        return pads, pads
    if len(pads) == 2 * spatial:
        return pads[0::2], pads[1::2]
    raise ctx.attrs.bad("paddings", pads, f"expected {spatial} or {2 * spatial} values")


def _window(ctx: ExtractContext, spatial: int) -> Window:
    algorithm = ctx.attrs.choice("padding_algorithm", list(_AUTO_PADS), "EXPLICIT")
    begin, end = _pads(ctx, spatial)
    return Window.of(ctx.attrs.ints("strides", [1] * spatial, length=spatial),
                     ctx.attrs.ints("dilations", [1] * spatial, length=spatial), begin, end, _AUTO_PADS[algorithm])


def extract_conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Filter [O, I/g, k...]; depthwise_conv2d is the grouped case with g = C."""
    _channels_first(ctx)
    spatial = require_rank(ctx) - 2
    weights = arg(ctx, 1)
    assert weights is not None
    return [convolution(ctx, x(ctx), weights, _window(ctx, spatial), ctx.attrs.int("groups", 1))]


CONV = aliases("paddle", [*both("conv2d"), *both("depthwise_conv2d"), *both("conv3d")], extract_conv,
               produces=CONVOLUTION_OPS)


def extract_conv_transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Filter [I, O/g, k...]; ``output_padding`` adds cells at the end; an ``output_size``
    (attribute or operand) gives the spatial result size."""
    _channels_first(ctx)
    spatial = require_rank(ctx) - 2
    weights = arg(ctx, 1)
    assert weights is not None
    sizes = known_ints(ctx, "output_size", 2, [])
    extra = ctx.attrs.ints("output_padding", [])
    output_shape = i64(ctx, sizes, "output_size") if sizes else None
    return [convolution_backprop(ctx, x(ctx), weights, _window(ctx, spatial), extra or None,
                                 ctx.attrs.int("groups", 1), output_shape=output_shape)]


CONV_TRANSPOSE = aliases("paddle", [*both("conv2d_transpose"), *both("depthwise_conv2d_transpose"),
                                    *both("conv3d_transpose")], extract_conv_transpose,
                         produces=CONVOLUTION_BACKPROP_OPS)


def extract_batch_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inference form: operands x, mean, variance, scale, bias; only output 0 is used."""
    _channels_first(ctx)
    mean, variance, scale, bias = (arg(ctx, i) for i in range(1, 5))
    data = x(ctx)
    out = ctx.op(BatchNormInference(epsilon=ctx.attrs.float("epsilon", 1e-5)), data, scale, bias, mean, variance)
    return [out] + [ctx.const(np.zeros((0,), np.float32), suffix=f"unused{i}") for i in range(1, node.num_outputs())]


BATCH_NORM = aliases("paddle", [*both("batch_norm"), "sync_batch_norm"], extract_batch_norm,
                     produces=[BatchNormInference])


def extract_layer_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Normalised over the axes from ``begin_norm_axis`` on, then scaled and shifted by the
    flattened scale and bias reshaped to those axes."""
    data = x(ctx)
    rank = require_rank(ctx)
    begin = ctx.attrs.int("begin_norm_axis", 1)
    dims = dims_of(ctx, data, list(range(begin, rank)), "normalized_dims")
    scale, bias = (None if p is None else ctx.op(Reshape(special_zero=False), p, dims, suffix=name)
                   for p, name in ((arg(ctx, 1), "scale"), (arg(ctx, 2), "bias")))
    out = normalized(ctx, data, list(range(begin, rank)), ctx.attrs.float("epsilon", 1e-5), Affine(scale, bias))
    extra = [ctx.const(np.zeros((0,), np.float32), suffix=f"unused{i}") for i in range(1, node.num_outputs())]
    return [out, *extra]


LAYER_NORM = aliases("paddle", both("layer_norm"), extract_layer_norm,
                     produces=[*NORMALIZED_OPS, Reshape, Gather, ShapeOf])


def extract_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Max or average windows (``exclusive``: padding not counted), global pooling, and
    adaptive pooling to a given output size. The kernel is the legacy ``ksize`` attribute
    or the PIR ``kernel_size`` operand."""
    _channels_first(ctx)
    data = x(ctx)
    spatial = require_rank(ctx) - 2
    kind = ctx.attrs.choice("pooling_type", ["max", "avg"], "max")
    kernel = known_ints(ctx, "ksize", 1)
    if ctx.attrs.bool("global_pooling", False) or (ctx.attrs.bool("adaptive", False) and set(kernel) == {1}):
        return [global_pool(ctx, data, GlobalPool.MAX if kind == "max" else GlobalPool.AVG, axes_from(ctx, data, 2))]
    if ctx.attrs.bool("adaptive", False):
        size = i64(ctx, kernel, "output_size")
        if kind == "max":
            return [ctx.add(AdaptiveMaxPool(), [data, size]).out_port(0)]
        return [ctx.op(AdaptiveAvgPool(), data, size)]
    window = _window(ctx, spatial)
    pool = PoolWindow(tuple(kernel), window, "ceil" if ctx.attrs.bool("ceil_mode", False) else "floor")
    if kind == "max":
        return [max_pool(ctx, data, pool, values_only=True).out_port(0)]
    return [avg_pool(ctx, data, pool, exclude_pad=ctx.attrs.bool("exclusive", True))]


POOL = aliases("paddle", [*both("pool2d"), *both("pool3d")], extract_pool,
               produces=[*MAX_POOL_OPS, *AVG_POOL_OPS, *GLOBAL_POOL_OPS, AdaptiveAvgPool, AdaptiveMaxPool])


def extract_max_pool_with_index(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Max pooling with the flat spatial index of each maximum (``adaptive``: to an output size)."""
    data = x(ctx)
    spatial = require_rank(ctx) - 2
    kernel = ctx.attrs.ints("kernel_size", ctx.attrs.ints("ksize", []))
    if ctx.attrs.bool("adaptive", False):
        pooled = ctx.add(AdaptiveMaxPool(), [data, i64(ctx, kernel, "output_size")])
    else:
        if ctx.attrs.bool("global_pooling", False):
            spatial_dims = (ctx.input_shape(0) or ())[2:]
            if any(d is None for d in spatial_dims):
                raise ctx.attrs.bad("global_pooling", True, "a global max pool with indices needs the spatial sizes")
            kernel = [int(d) for d in spatial_dims if d is not None]
        window = Window.of(ctx.attrs.ints("strides", [1] * spatial), None, *_pads(ctx, spatial))
        pool = PoolWindow(tuple(kernel), window, "ceil" if ctx.attrs.bool("ceil_mode", False) else "floor")
        pooled = max_pool(ctx, data, pool, axis=2)
    return [pooled.out_port(0), pooled.out_port(1)]


MAX_POOL_WITH_INDEX = aliases("paddle", [*both("max_pool2d_with_index"), *both("max_pool3d_with_index")],
                              extract_max_pool_with_index, produces=[*MAX_POOL_OPS, AdaptiveMaxPool])


def extract_matmul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """matmul_v2 (``trans_x``/``trans_y``) and PIR matmul (``transpose_x``/``transpose_y``)."""
    a, b = x(ctx), arg(ctx, 1)
    op = MatMul(transpose_a=ctx.attrs.bool("transpose_x", ctx.attrs.bool("trans_x", False)),
                transpose_b=ctx.attrs.bool("transpose_y", ctx.attrs.bool("trans_y", False)))
    return [ctx.op(op, a, b)]


MATMUL = aliases("paddle", ["matmul_v2", "pd_op.matmul"], extract_matmul, produces=[MatMul])


@extractor("paddle", "matmul", produces=[MatMul, Multiply])
def extract_matmul_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The legacy v1 op: ``transpose_X``/``transpose_Y`` and a scaling ``alpha``."""
    op = MatMul(transpose_a=ctx.attrs.bool("transpose_X", False), transpose_b=ctx.attrs.bool("transpose_Y", False))
    out = ctx.op(op, x(ctx), arg(ctx, 1), suffix="matmul")
    alpha = ctx.attrs.float("alpha", 1.0)
    return [out if alpha == 1.0 else ctx.op(Multiply(), out, const_like(ctx, alpha, out, "alpha"))]


@extractor("paddle", "mul", produces=[MatMul, Reshape])
def extract_mul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The legacy fully connected product: X flattened to 2-D at ``x_num_col_dims``, Y at
    ``y_num_col_dims``."""
    a, b = x(ctx), arg(ctx, 1)
    assert b is not None
    x_cols, y_cols = ctx.attrs.int("x_num_col_dims", 1), ctx.attrs.int("y_num_col_dims", 1)
    if require_rank(ctx, 0) > 2:
        a = ctx.op(Reshape(special_zero=True), a, i64(ctx, [0] * x_cols + [-1], "x_shape"), suffix="x2d")
    if require_rank(ctx, 1) > 2:
        b = ctx.op(Reshape(special_zero=True), b, i64(ctx, [0] * y_cols + [-1], "y_shape"), suffix="y2d")
    return [ctx.op(MatMul(transpose_a=False, transpose_b=False), a, b)]


@extractor("paddle", "dropout", produces=[Multiply])
def extract_dropout(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Identity at inference, unless ``downgrade_in_infer`` scales by 1 - p (operands x,
    seed, p in PIR; slots X, Seed and attribute ``dropout_prob`` in the legacy form)."""
    data = x(ctx)
    implementation = ctx.attrs.str("dropout_implementation", ctx.attrs.str("mode", "upscale_in_train"))
    mask = [ctx.const(np.zeros((0,), np.uint8), suffix=f"mask{i}") for i in range(1, node.num_outputs())]
    if implementation == "upscale_in_train" or ctx.attrs.bool("is_test", True) is False:
        return [data, *mask]
    keep = 1.0 - known_float(ctx, "dropout_prob", 2, 0.5)  # PIR: operand 2; legacy: the attribute
    return [ctx.op(Multiply(), data, const_like(ctx, keep, data, "keep")), *mask]


PD_DROPOUT = aliases("paddle", ["pd_op.dropout"], extract_dropout, produces=[Multiply])


@extractor("paddle", "transpose2", produces=[Transpose])
def extract_transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    perm = ctx.attrs.ints("axis", []) if "axis" in ctx.attrs else ctx.attrs.ints("perm")
    xshape = [ctx.const(np.zeros((0,), np.int64), suffix="xshape")] if node.num_outputs() > 1 else []
    return [ctx.op(Transpose(), x(ctx), i64(ctx, perm, "perm")), *xshape]


PD_TRANSPOSE = aliases("paddle", ["pd_op.transpose", "transpose"], extract_transpose, produces=[Transpose])


@extractor("paddle", "channel_shuffle", produces=[ShuffleChannels])
def extract_channel_shuffle(node: Node, ctx: ExtractContext) -> list[OutPort]:
    _channels_first(ctx)
    return [ctx.op(ShuffleChannels(axis=1, group=ctx.attrs.int("groups")), x(ctx))]


PD_CHANNEL_SHUFFLE = aliases("paddle", ["pd_op.channel_shuffle"], extract_channel_shuffle, produces=[ShuffleChannels])


def extract_deformable_conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Deformable convolution (v2 with ``Mask``, v1 without): offsets [N, 2*dg*kh*kw, H, W]
    as (y, x) pairs, samples outside the input read as zero."""
    data, offsets, weights, mask = x(ctx), arg(ctx, 1), arg(ctx, 2), arg(ctx, 3)
    assert offsets is not None and weights is not None
    spatial = require_rank(ctx) - 2
    window = _window(ctx, spatial)
    op = DeformableConvolution(strides=window.strides, dilations=window.dilations, pads_begin=window.pads_begin,
                               pads_end=window.pads_end, auto_pad=window.auto_pad, group=ctx.attrs.int("groups", 1),
                               deformable_group=ctx.attrs.int("deformable_groups", 1), bilinear_interpolation_pad=True)
    return [ctx.op(op, data, offsets, weights, *([mask] if mask is not None else []))]


DEFORMABLE_CONV = aliases("paddle", ["deformable_conv", "deformable_conv_v1", "pd_op.deformable_conv"],
                          extract_deformable_conv, produces=[DeformableConvolution])
