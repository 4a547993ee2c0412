"""Convolution, pooling and matrix products: Conv, ConvTranspose, *Pool, MatMul, Gemm, Einsum."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import AttributeReader, const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    DeformableConvolution,
    Divide,
    Einsum,
    FloorMod,
    Gather,
    GroupConvolution,
    MatMul,
    Multiply,
    Pad,
    Range,
    ReduceProd,
    ReduceSum,
    Reshape,
    ScatterElementsUpdate,
    ShapeOf,
    Slice,
    Split,
    Squeeze,
    Subtract,
)
from irconv_opset.build import axes_from, shape_of
from irconv_opset.lowering.convolution import (
    CHANNEL_BIAS_OPS,
    CONVOLUTION_BACKPROP_OPS,
    CONVOLUTION_OPS,
    PadSplit,
    Window,
    channel_bias,
    convolution,
    convolution_backprop,
    padding_for_output_size,
)
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

from irconv_onnx.extractors._common import node_inputs
from irconv_onnx.extractors._optional import HANDLED, with_defaults

_AUTO_PAD = {"NOTSET": "explicit", "SAME_UPPER": "same_upper", "SAME_LOWER": "same_lower", "VALID": "valid"}


def conv_window(a: AttributeReader, spatial: int) -> Window:
    """The spatial attributes shared by convolutions and pools, with ONNX defaults."""
    pads = a.ints("pads", [0] * 2 * spatial)
    return Window.of(a.ints("strides", [1] * spatial), a.ints("dilations", [1] * spatial), pads[:spatial],
                     pads[spatial:], _AUTO_PAD[a.choice("auto_pad", list(_AUTO_PAD), "NOTSET")])


def _pool_window(a: AttributeReader) -> PoolWindow:
    kernel = tuple(a.ints("kernel_shape"))
    return PoolWindow(kernel, conv_window(a, len(kernel)), "ceil_torch" if a.int("ceil_mode", 0) else "floor")


def spatial_rank(node: Node, ctx: ExtractContext, weights_idx: int | None) -> int:
    a = ctx.attrs
    kernel = a.ints("kernel_shape", None)
    if kernel:
        return len(kernel)
    source = ctx.input(weights_idx if weights_idx is not None else 0)
    shape = source.data.shape
    if shape is None:
        raise ConversionError(f"{ctx.where()}: the rank of input "
                              f"{weights_idx or 0} must be known (set it with --input)")
    return len(shape) - 2


def _bias(ctx: ExtractContext, port: OutPort, bias_idx: int, spatial: int) -> OutPort:
    if not ctx.has_input(bias_idx):
        return port
    return channel_bias(ctx, port, ctx.input(bias_idx), spatial + 2)


@extractor("onnx", "Conv", produces=[*CONVOLUTION_OPS, *CHANNEL_BIAS_OPS])
@with_defaults({2: HANDLED})
def _conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    spatial = spatial_rank(node, ctx, 1)
    out = convolution(ctx, ctx.input(0), ctx.input(1), conv_window(ctx.attrs, spatial), ctx.attrs.int("group", 1))
    return [_bias(ctx, out, 2, spatial)]


@extractor("onnx", "ConvTranspose", produces=[*CONVOLUTION_BACKPROP_OPS, *CHANNEL_BIAS_OPS])
@with_defaults({2: HANDLED})
def _conv_transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    spatial = spatial_rank(node, ctx, 1)
    w = conv_window(a, spatial)
    output_padding = tuple(a.ints("output_padding", [0] * spatial))
    output_shape = a.ints("output_shape", None)
    x_shape, k_shape = ctx.input_shape(0), ctx.input_shape(1)
    static = x_shape is not None and k_shape is not None and all(d is not None for d in x_shape[2:]) and \
        all(d is not None for d in k_shape[2:])
    if not output_shape and w.auto_pad in ("same_upper", "same_lower") and static:
        assert x_shape is not None
        output_shape = [int(x_shape[2 + i] or 0) * w.strides[i] for i in range(spatial)]  # static: none is None
    if output_shape:
        # ONNX derives the pads from the requested size; do it here so the IR is explicit.
        if not static:
            raise a.bad("output_shape", output_shape, "needs static input and kernel spatial sizes")
        assert x_shape is not None and k_shape is not None
        split = PadSplit.END if w.auto_pad == "same_upper" else PadSplit.BEGIN
        sizes = [d for d in x_shape[2:] if d is not None]
        kernel = [d for d in k_shape[2:] if d is not None]
        padding = padding_for_output_size(sizes, kernel, w, output_shape[-spatial:], split, output_padding)
        w = Window(w.strides, w.dilations, padding.pads_begin, padding.pads_end, "explicit")
        output_padding = padding.output_padding
    out = convolution_backprop(ctx, ctx.input(0), ctx.input(1), w, output_padding, a.int("group", 1))
    return [_bias(ctx, out, 2, spatial)]


@extractor("onnx", "DeformConv", versions=(19, None), produces=[DeformableConvolution, *CHANNEL_BIAS_OPS])
@with_defaults({3: HANDLED, 4: HANDLED})
def _deform_conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """DeformConv-19 as DeformableConvolution-8 (bilinear sampling with zeros outside the image,
    the mask as modulation), plus the bias."""
    a = ctx.attrs
    spatial = spatial_rank(node, ctx, 1)
    w = conv_window(a, spatial)
    op = DeformableConvolution(strides=w.strides, dilations=w.dilations, pads_begin=w.pads_begin,
                               pads_end=w.pads_end, auto_pad="explicit", group=a.int("group", 1),
                               deformable_group=a.int("offset_group", 1), bilinear_interpolation_pad=True)
    inputs = [ctx.input(0), ctx.input(2), ctx.input(1)] + ([ctx.input(4)] if ctx.has_input(4) else [])
    return [_bias(ctx, ctx.op(op, *inputs, suffix="deform_conv"), 3, spatial)]


@extractor("onnx", "MaxUnpool", versions=(9, None), produces=[ScatterElementsUpdate, Reshape, Add, Broadcast, Convert, Gather, Multiply, Pad, ReduceProd, ShapeOf, Subtract])
@with_defaults({2: HANDLED})
def _max_unpool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Scatter X into zeros at MaxPool's flat indices (over the whole output tensor); the output
    shape is output_shape, else (in - 1) * stride - pads + kernel per spatial axis."""
    a = ctx.attrs
    kernel = a.ints("kernel_shape")
    spatial = len(kernel)
    strides = a.ints("strides", [1] * spatial)
    pads = a.ints("pads", [0] * 2 * spatial)
    x = ctx.input(0)
    shape = shape_of(ctx, x)
    dims = ctx.op(Gather(), shape, i64(ctx, list(range(2 + spatial))), i64(ctx, 0), suffix="dims")
    grown = ctx.op(Multiply(), ctx.op(Add(), dims, i64(ctx, [0, 0] + [-1] * spatial), suffix="less_one"),
                   i64(ctx, [1, 1] + strides), suffix="strided")
    extra = [k - pads[i] - pads[spatial + i] for i, k in enumerate(kernel)]
    target = ctx.op(Add(), grown, i64(ctx, [0, 0] + extra), suffix="default_shape")
    total = ctx.op(ReduceProd(keep_dims=True), target, i64(ctx, [0]), suffix="total")
    zeros = ctx.op(Broadcast(), const_like(ctx, 0, x, "zero"), total, suffix="zeros")
    flat_x = ctx.op(Reshape(special_zero=False), x, i64(ctx, [-1]), suffix="flat_x")
    flat_i = ctx.op(Reshape(special_zero=False), ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1),
                                                        suffix="indices"), i64(ctx, [-1]), suffix="flat_indices")
    scattered = ctx.op(ScatterElementsUpdate(), zeros, flat_i, flat_x, i64(ctx, 0), suffix="scattered")
    unpooled = ctx.op(Reshape(special_zero=False), scattered, target, suffix="unpooled")
    if not ctx.has_input(2):
        return [unpooled]
    # The indices address the default shape; a larger output_shape adds zeros at the end.
    wanted = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(2), suffix="output_shape")
    end = ctx.op(Subtract(), wanted, target, suffix="pad_end")
    return [ctx.op(Pad(pad_mode="constant"), unpooled, i64(ctx, [0] * (2 + spatial)), end)]


@extractor("onnx", "MaxPool", produces=[*MAX_POOL_OPS, FloorMod, Subtract, Divide, Multiply, Add])
def _max_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    pool_window = _pool_window(a)
    column_major = bool(a.int("storage_order", 0)) and len(node.out_ports()) > 1
    shape = ctx.input_shape(0)
    if column_major and (len(pool_window.kernel) != 2 or shape is None or shape[2] is None or shape[3] is None):
        raise a.bad("storage_order", 1, "column-major indices need 2-D pooling with static spatial sizes")
    pool = max_pool(ctx, ctx.input(0), pool_window)
    indices = pool.out_port(1)
    if column_major:
        assert shape is not None and shape[2] is not None and shape[3] is not None
        indices = _column_major(ctx, indices, shape[2], shape[3])
    return [pool.out_port(0), indices][: len(node.out_ports())]


def _column_major(ctx: ExtractContext, index: OutPort, height: int, width: int) -> OutPort:
    """Row-major flat indices c*H*W + h*W + w as column-major c*H*W + h + w*H."""
    plane = height * width
    within = ctx.op(FloorMod(), index, i64(ctx, plane), suffix="within")
    base = ctx.op(Subtract(), index, within, suffix="plane_start")
    h = ctx.op(Divide(m_pythondiv=True), within, i64(ctx, width), suffix="row")
    w = ctx.op(FloorMod(), within, i64(ctx, width), suffix="column")
    return ctx.op(Add(), base, ctx.op(Add(), h, ctx.op(Multiply(), w, i64(ctx, height), suffix="column_offset"),
                                      suffix="column_major_within"), suffix="column_major")


@extractor("onnx", "AveragePool", produces=[*AVG_POOL_OPS, GroupConvolution, Pad, Broadcast, Divide, ShapeOf])
def _avg_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    pool_window = _pool_window(a)
    if any(d != 1 for d in pool_window.window.dilations):
        return [_dilated_avg_pool(node, ctx, pool_window.kernel, pool_window.window)]
    return [avg_pool(ctx, ctx.input(0), pool_window, exclude_pad=not a.int("count_include_pad", 0))]


def _dilated_avg_pool(node: Node, ctx: ExtractContext, kernel: tuple[int, ...], w: Window) -> OutPort:
    """AvgPool with dilations as window sums over window counts, both depthwise convolutions
    with a kernel of ones; needs static channels and spatial sizes (ceil_mode adds end padding
    that is never counted)."""
    a = ctx.attrs
    shape = ctx.input_shape(0)
    if shape is None or any(d is None for d in shape[1:]) or w.auto_pad != "explicit":
        raise a.bad("dilations", list(w.dilations), "dilated AveragePool needs static channels and spatial sizes "
                                                    "and explicit pads")
    spatial = len(kernel)
    dims = [int(d or 0) for d in shape[2:]]  # static: none is None
    extra = []
    for i in range(spatial):
        size = dims[i] + w.pads_begin[i] + w.pads_end[i]
        reach = (kernel[i] - 1) * w.dilations[i] + 1
        if a.int("ceil_mode", 0):
            out = -(-(size - reach) // w.strides[i]) + 1
            if (out - 1) * w.strides[i] >= dims[i] + w.pads_begin[i]:
                out -= 1
        else:
            out = (size - reach) // w.strides[i] + 1
        extra.append(max(0, (out - 1) * w.strides[i] + reach - size))
    x = ctx.input(0)
    channels = shape[1]
    weights = const_like(ctx, np.ones((channels, 1, 1) + kernel), x, "ones_kernel")
    conv = GroupConvolution(strides=w.strides, dilations=w.dilations, pads_begin=(0,) * spatial,
                            pads_end=(0,) * spatial, auto_pad="explicit")
    zero, one = const_like(ctx, 0, x, "zero"), const_like(ctx, 1, x, "one")
    begin = i64(ctx, [0, 0, *w.pads_begin], "pad_begin")
    end_all = i64(ctx, [0, 0, *(p + e for p, e in zip(w.pads_end, extra, strict=False))], "pad_end")
    padded = ctx.op(Pad(pad_mode="constant"), x, begin, end_all, zero, suffix="padded")
    total = ctx.op(conv, padded, weights, suffix="window_sum")
    ones = ctx.op(Broadcast(), one, shape_of(ctx, x), suffix="ones")
    if a.int("count_include_pad", 0):
        ones = ctx.op(Pad(pad_mode="constant"), ones, begin, i64(ctx, [0, 0, *w.pads_end], "pad_end_explicit"), one,
                      suffix="ones_padded")
        ones = ctx.op(Pad(pad_mode="constant"), ones, i64(ctx, [0] * (spatial + 2), "no_pad"),
                      i64(ctx, [0, 0, *extra], "pad_extra"), zero, suffix="ones_extended")
    else:
        ones = ctx.op(Pad(pad_mode="constant"), ones, begin, end_all, zero, suffix="ones_padded")
    count = ctx.op(conv, ones, weights, suffix="window_count")
    return ctx.op(Divide(), total, count, suffix="average")


@extractor("onnx", "LpPool", produces=[*LP_POOL_OPS, GroupConvolution])
def _lp_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(sum over the window of |x|^p)^(1/p); with dilations the window sums are a depthwise
    convolution with a kernel of ones."""
    a = ctx.attrs
    pool_window = _pool_window(a)
    w, kernel = pool_window.window, pool_window.kernel
    p = float(a.int("p", 2))
    x = ctx.input(0)
    if all(d == 1 for d in w.dilations):
        return [lp_pool(ctx, x, p, pool_window.size, lambda y: avg_pool(ctx, y, pool_window, exclude_pad=False))]
    shape = ctx.input_shape(0)
    if shape is None or shape[1] is None or a.int("ceil_mode", 0):
        raise a.bad("dilations", list(w.dilations), "dilated LpPool needs a static channel count and ceil_mode=0")
    ones = const_like(ctx, np.ones((shape[1], 1, 1) + kernel), x, "ones_kernel")
    conv = GroupConvolution(**w.attributes())
    return [lp_pool(ctx, x, p, 1, lambda y: ctx.op(conv, y, ones, suffix="window_sum"))]


_GLOBAL_KINDS = {"avg": GlobalPool.AVG, "max": GlobalPool.MAX}


def _global_pool(kind: str, node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    if kind == "lp":
        p = ctx.attrs.int("p", 2)
        if p not in (1, 2):
            raise ctx.attrs.bad("p", p, "only p = 1 or 2")
        pool = GlobalPool.L1 if p == 1 else GlobalPool.L2
    else:
        pool = _GLOBAL_KINDS[kind]
    return [global_pool(ctx, x, pool, axes_from(ctx, x, 2))]


@extractor("onnx", "MatMul", produces=[MatMul])
def _mat_mul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(MatMul(), *node_inputs(ctx))]


@extractor("onnx", "Gemm", produces=[MatMul, Multiply, Add])
@with_defaults({2: HANDLED})
def _gemm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """alpha * A' B' + beta * C."""
    a = ctx.attrs
    alpha, beta = a.float("alpha", 1.0), a.float("beta", 1.0)
    x = ctx.input(0)
    out = ctx.op(MatMul(transpose_a=bool(a.int("transA", 0)), transpose_b=bool(a.int("transB", 0))),
                 x, ctx.input(1), suffix="matmul")
    if alpha != 1.0:
        out = ctx.op(Multiply(), out, const_like(ctx, alpha, x, "alpha"), suffix="alpha")
    if ctx.has_input(2) and beta != 0.0:
        c = ctx.input(2)
        if beta != 1.0:
            c = ctx.op(Multiply(), c, const_like(ctx, beta, x, "beta"), suffix="beta")
        out = ctx.op(Add(), out, c, suffix="add")
    return [out]


@extractor("onnx", "Einsum", versions=(12, None), produces=[Einsum])
def _einsum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    equation = ctx.attrs.str("equation").replace(" ", "")
    return [ctx.op(Einsum(equation=equation), *node_inputs(ctx))]


@extractor("onnx", "Det", versions=(11, None), produces=[Gather, ReduceProd, ReduceSum, Concat, Multiply, Reshape, ShapeOf, Slice, Split, Squeeze])
def _det(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Determinant of [..., N, N] for a static N <= 4 by the Leibniz formula: for every
    permutation p, sign(p) * prod_i x[i, p(i)], gathered from the flattened matrix and summed."""
    from itertools import permutations

    shape = ctx.input_shape(0)
    n = shape[-1] if shape is not None and len(shape) >= 2 and shape[-1] == shape[-2] else None
    if n is None or not 1 <= n <= 4:
        raise ctx.attrs.bad("input", shape, "Det is supported for static square matrices up to 4 x 4")
    perms = list(permutations(range(n)))
    index = np.array([[i * n + p[i] for i in range(n)] for p in perms], np.int64)
    signs = np.array([(-1) ** sum(p[i] > p[j] for i in range(n) for j in range(i + 1, n)) for p in perms])
    x = ctx.input(0)
    batch = ctx.op(Slice(), shape_of(ctx, x), i64(ctx, [0]), i64(ctx, [-2]), i64(ctx, [1]),
                   i64(ctx, [0]), suffix="batch_dims")
    target = ctx.op(Concat(axis=0), batch, i64(ctx, [n * n]), suffix="flat_shape")
    flat = ctx.op(Reshape(special_zero=False), x, target, suffix="flat")
    assert shape is not None  # n is known
    last = len(shape) - 2  # the flattened matrix axis
    terms = ctx.op(Gather(batch_dims=0), flat, i64(ctx, index, "permutations"), i64(ctx, last), suffix="terms")
    factors = ctx.add(Split(num_splits=n), [terms, i64(ctx, last + 1)], "factors")
    products = factors.out_port(0)
    for i in range(1, n):
        products = ctx.op(Multiply(), products, factors.out_port(i), suffix=f"product{i}")
    products = ctx.op(Squeeze(), products, i64(ctx, [last + 1]), suffix="products")
    signed = ctx.op(Multiply(), products, const_like(ctx, signs, x, "signs"), suffix="signed")
    return [ctx.op(ReduceSum(keep_dims=False), signed, i64(ctx, [last]))]


@extractor("onnx", "GlobalAveragePool", produces=[*GLOBAL_POOL_OPS, ShapeOf, Squeeze, Range])
def global_average_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _global_pool("avg", node, ctx)


@extractor("onnx", "GlobalMaxPool", produces=[*GLOBAL_POOL_OPS, ShapeOf, Squeeze, Range])
def global_max_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _global_pool("max", node, ctx)


@extractor("onnx", "GlobalLpPool", versions=(2, None), produces=[*GLOBAL_POOL_OPS, ShapeOf, Squeeze, Range])
def global_lp_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _global_pool("lp", node, ctx)
