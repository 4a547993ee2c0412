"""Convolutions, pooling, matrix products, embeddings."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, extractor, i64, numpy_dtype, require_rank, typed
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    AdaptiveAvgPool,
    AdaptiveMaxPool,
    Add,
    Col2Im,
    Convert,
    Einsum,
    Gather,
    GroupConvolutionBackpropData,
    MatMul,
    Multiply,
    Reshape,
    Squeeze,
    Unsqueeze,
)
from irconv_opset.lowering.convolution import (
    CHANNEL_BIAS_OPS,
    CONVOLUTION_BACKPROP_OPS,
    CONVOLUTION_OPS,
    Window,
    channel_bias,
    convolution_backprop,
)
from irconv_opset.lowering.convolution import convolution as forward_convolution
from irconv_opset.lowering.pooling import AVG_POOL_OPS, MAX_POOL_OPS, PoolWindow, avg_pool, max_pool

from irconv_torch.extractors._args import TORCH_2_5, cast, optional, out_type, tensor, tensors


def _spatial(ctx: ExtractContext) -> int:
    return require_rank(ctx, 0) - 2


def _per_dim(ctx: ExtractContext, name: str, spatial: int, default: int) -> tuple[int, ...]:
    """An ``int[]`` window argument; one value stands for every spatial dimension."""
    values = ctx.attrs.ints(name, [default])
    if not values:
        values = [default]
    if len(values) == 1:
        values = values * spatial
    if len(values) != spatial:
        raise ctx.attrs.bad(name, values, f"expected {spatial} values")
    return tuple(values)


def _convolution(ctx: ExtractContext, *, transposed: bool) -> list[OutPort]:
    spatial = _spatial(ctx)
    element_type = out_type(ctx)
    data = cast(ctx, tensor(ctx, "input"), element_type)
    weight = cast(ctx, tensor(ctx, "weight"), element_type, suffix="weight_convert")
    strides = _per_dim(ctx, "stride", spatial, 1)
    dilations = _per_dim(ctx, "dilation", spatial, 1)
    groups = ctx.attrs.int("groups", 1)
    padding = ctx.attrs.get("padding", [0])
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ctx.attrs.bad("padding", padding, "expected 'same', 'valid' or integers")
        window = Window.of(strides, dilations, auto_pad="same_upper" if padding == "same" else "valid")
    else:
        window = Window.of(strides, dilations, _per_dim(ctx, "padding", spatial, 0))
    if transposed:
        output_padding = _per_dim(ctx, "output_padding", spatial, 0)
        port = convolution_backprop(ctx, data, weight, window, output_padding, groups, suffix="op")
    else:
        port = forward_convolution(ctx, data, weight, window, groups, suffix="op")
    bias = optional(ctx, "bias")
    if bias is None:
        return [port]
    return [channel_bias(ctx, port, cast(ctx, bias, port.data.element_type), spatial + 2)]


@extractor("torch", "aten.convolution.default", versions=TORCH_2_5,
      produces=[*CONVOLUTION_OPS, *CONVOLUTION_BACKPROP_OPS, *CHANNEL_BIAS_OPS, Convert])
def convolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _convolution(ctx, transposed=ctx.attrs.bool("transposed", False))


def conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _convolution(ctx, transposed=False)


def conv_transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _convolution(ctx, transposed=True)


convs = aliases("torch", [f"aten.conv{d}d.{overload}" for d in (1, 2, 3) for overload in ("default", "padding")],
                conv, versions=TORCH_2_5, produces=[*CONVOLUTION_OPS, *CHANNEL_BIAS_OPS, Convert])
conv_transposes = aliases("torch", [f"aten.conv_transpose{d}d.{overload}" for d in (1, 2, 3)
                                    for overload in ("input", "default")],
                          conv_transpose, versions=TORCH_2_5,
                          produces=[*CONVOLUTION_BACKPROP_OPS, *CHANNEL_BIAS_OPS, Convert])


# ----------------------------------------------------------------------------- pooling


def _pool_window(ctx: ExtractContext, spatial: int, dilated: bool) -> PoolWindow:
    """A pool's window as torch gives it (an empty stride is the kernel)."""
    kernel = _per_dim(ctx, "kernel_size", spatial, 1)
    strides = ctx.attrs.ints("stride", [])
    stride = (tuple(strides) * (spatial if len(strides) == 1 else 1)) if strides else kernel
    return PoolWindow.of(kernel, stride, _per_dim(ctx, "padding", spatial, 0),
                         dilations=_per_dim(ctx, "dilation", spatial, 1) if dilated else None,
                         rounding="ceil_torch" if ctx.attrs.bool("ceil_mode", False) else "floor")


def max_pool_with_indices(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Values and indices (flat within each spatial plane, as torch's)."""
    pool = max_pool(ctx, tensor(ctx, "self"), _pool_window(ctx, _spatial(ctx), True), axis=2, suffix="op")
    return [pool.out_port(0), pool.out_port(1)]


max_pools_with_indices = aliases("torch", ["aten.max_pool2d_with_indices.default",
                                           "aten.max_pool3d_with_indices.default"], max_pool_with_indices,
                                 versions=TORCH_2_5, produces=[*MAX_POOL_OPS])


@extractor("torch", "aten.max_pool2d.default", versions=TORCH_2_5, produces=[*MAX_POOL_OPS])
def max_pool_values(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [max_pool(ctx, tensor(ctx, "self"), _pool_window(ctx, _spatial(ctx), True), axis=2,
                     suffix="op").out_port(0)]


def avg_pool_values(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if ctx.attrs.get("divisor_override") is not None:
        raise ctx.attrs.bad("divisor_override", ctx.attrs.get("divisor_override"), "a custom divisor")
    return [avg_pool(ctx, tensor(ctx, "self"), _pool_window(ctx, _spatial(ctx), False),
                     exclude_pad=not ctx.attrs.bool("count_include_pad", True), suffix="op")]


avg_pools = aliases("torch", ["aten.avg_pool1d.default", "aten.avg_pool2d.default", "aten.avg_pool3d.default"],
                    avg_pool_values, versions=TORCH_2_5, produces=[*AVG_POOL_OPS])


def adaptive_avg_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    size = ctx.attrs.ints("output_size")
    return [ctx.op(AdaptiveAvgPool(), tensor(ctx, "self"), i64(ctx, size), suffix="op")]


adaptive_avg_pools = aliases("torch", ["aten.adaptive_avg_pool1d.default", "aten.adaptive_avg_pool2d.default",
                                       "aten.adaptive_avg_pool3d.default", "aten._adaptive_avg_pool2d.default",
                                       "aten._adaptive_avg_pool3d.default"], adaptive_avg_pool, versions=TORCH_2_5,
                             produces=[AdaptiveAvgPool])


def adaptive_max_pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Values and indices (flat within each spatial plane, as torch's; computed as i32,
    which OpenVINO's CPU plugin requires, then i64 as torch gives them)."""
    pool = ctx.add(AdaptiveMaxPool(index_element_type=ElementType.i32),
                   [tensor(ctx, "self"), i64(ctx, ctx.attrs.ints("output_size"))], suffix="op")
    return [pool.out_port(0), cast(ctx, pool.out_port(1), ElementType.i64, suffix="indices")]


adaptive_max_pools = aliases("torch", ["aten.adaptive_max_pool2d.default", "aten.adaptive_max_pool3d.default"],
                             adaptive_max_pool, versions=TORCH_2_5, produces=[AdaptiveMaxPool, Convert])


@extractor("torch", "aten.col2im.default", versions=TORCH_2_5,
           produces=[Col2Im, GroupConvolutionBackpropData, Reshape, Squeeze, Unsqueeze, Convert])
def col2im(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``nn.Fold``: the columns ``[N, C*kh*kw, L]`` summed back into ``[N, C, H, W]``. A
    transposed convolution does exactly that sum: grouped per channel, with a one-hot weight
    taking column ``ki*kw + kj`` of a block to its offset ``(ki, kj)`` in the window."""
    rank = require_rank(ctx, 0)
    data = cast(ctx, tensor(ctx, "self"), out_type(ctx))
    if rank == 2:  # unbatched
        data = ctx.op(Unsqueeze(), data, i64(ctx, [0]), suffix="batched")
    size = _per_dim(ctx, "output_size", 2, 1)
    kernel = _per_dim(ctx, "kernel_size", 2, 1)
    dilation, padding, stride = (_per_dim(ctx, name, 2, d) for name, d in
                                 (("dilation", 1), ("padding", 0), ("stride", 1)))
    columns = (ctx.input_shape(0) or (None,))[-2]
    window = kernel[0] * kernel[1]
    if not isinstance(columns, int):  # dynamic channels: no one-hot weight to build, OpenVINO's own op
        port = ctx.op(Col2Im(strides=list(stride), dilations=list(dilation), pads_begin=list(padding),
                             pads_end=list(padding)),
                      data, i64(ctx, size), i64(ctx, kernel), suffix="op")
        return [ctx.op(Squeeze(), port, i64(ctx, [0]), suffix="unbatched") if rank == 2 else port]
    if columns % window:
        raise ConversionError(f"{ctx.where()}: col2im needs a column count that is a multiple of "
                              f"{window} (kernel {kernel}); got {columns}")
    channels = columns // window
    blocks = [(size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(2)]
    reached = [(blocks[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + 1 for i in range(2)]
    grid = ctx.op(Reshape(special_zero=True), data, i64(ctx, [0, 0, *blocks]), suffix="grid")
    one_hot = np.zeros((channels, window, 1, *kernel), dtype=numpy_dtype(out_type(ctx)))
    one_hot[:, np.arange(window), 0, np.arange(window) // kernel[1], np.arange(window) % kernel[1]] = 1
    fold = GroupConvolutionBackpropData(strides=stride, dilations=dilation, pads_begin=padding, pads_end=padding,
                                        output_padding=tuple(size[i] - reached[i] for i in range(2)))
    port = ctx.op(fold, grid, ctx.const(one_hot, suffix="one_hot"), suffix="op")
    if rank == 2:
        port = ctx.op(Squeeze(), port, i64(ctx, [0]), suffix="unbatched")
    return [port]

# ----------------------------------------------------------------------------- products


@extractor("torch", "aten.linear.default", versions=TORCH_2_5, produces=[MatMul, Add, Convert])
def linear(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``input @ weight.T + bias``."""
    element_type = out_type(ctx)
    data = cast(ctx, tensor(ctx, "input"), element_type)
    weight = cast(ctx, tensor(ctx, "weight"), element_type, suffix="weight_convert")
    port = ctx.op(MatMul(transpose_b=True), data, weight, suffix="op")
    bias = optional(ctx, "bias")
    if bias is not None:
        port = ctx.op(Add(), port, cast(ctx, bias, element_type, suffix="bias_convert"), suffix="add_bias")
    return [port]


def _product(ctx: ExtractContext, second: str) -> list[OutPort]:
    """``self @ <second>`` in the result's type."""
    element_type = out_type(ctx)
    a = cast(ctx, tensor(ctx, "self"), element_type, suffix="a")
    b = cast(ctx, tensor(ctx, second), element_type, suffix="b")
    return [ctx.op(MatMul(), a, b, suffix="op")]


def mm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _product(ctx, "mat2")


@extractor("torch", "aten.matmul.default", versions=TORCH_2_5, produces=[MatMul, Convert])
def matmul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _product(ctx, "other")


mms = aliases("torch", ["aten.mm.default", "aten.bmm.default"], mm, versions=TORCH_2_5, produces=[MatMul, Convert])


def _added_product(ctx: ExtractContext, first: str, second: str) -> list[OutPort]:
    """``beta * self + alpha * <first> @ <second>``; with ``beta`` 0, ``self`` is not read
    (torch's rule: its NaNs do not reach the result)."""
    element_type = out_type(ctx)
    product = ctx.op(MatMul(), cast(ctx, tensor(ctx, first), element_type, "a"),
                     cast(ctx, tensor(ctx, second), element_type, "b"), suffix="op")
    alpha, beta = ctx.attrs.float("alpha", 1.0), ctx.attrs.float("beta", 1.0)
    if alpha != 1.0:
        product = ctx.op(Multiply(), product, typed(ctx, alpha, element_type, "alpha"), suffix="alpha_scaled")
    if beta == 0.0:
        return [product]
    bias = cast(ctx, tensor(ctx, "self"), element_type, "bias_convert")
    if beta != 1.0:
        bias = ctx.op(Multiply(), bias, typed(ctx, beta, element_type, "beta"), suffix="beta_scaled")
    return [ctx.op(Add(), product, bias, suffix="add_bias")]


@extractor("torch", "aten.addmm.default", versions=TORCH_2_5, produces=[MatMul, Add, Multiply, Convert])
def addmm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``beta * self + alpha * mat1 @ mat2`` (beta, alpha 1 as in every decomposed Linear)."""
    return _added_product(ctx, "mat1", "mat2")


@extractor("torch", "aten.baddbmm.default", versions=TORCH_2_5, produces=[MatMul, Add, Multiply, Convert])
def baddbmm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``beta * self + alpha * batch1 @ batch2`` over a batch of matrices (Bloom's attention
    scores with their ALiBi bias)."""
    return _added_product(ctx, "batch1", "batch2")


@extractor("torch", "aten.embedding.default", versions=TORCH_2_5, produces=[Gather])
def embedding(node: Node, ctx: ExtractContext) -> list[OutPort]:
    indices = tensor(ctx, "indices", like=None)
    return [ctx.op(Gather(), tensor(ctx, "weight"), indices, i64(ctx, 0), suffix="op")]


@extractor("torch", "aten.einsum.default", versions=TORCH_2_5, produces=[Einsum, Convert])
def einsum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    operands = [cast(ctx, p, element_type, suffix=f"operand{i}") for i, p in enumerate(tensors(ctx, "tensors"))
                if p is not None]
    equation = ctx.attrs.str("equation").replace(" ", "")
    return [ctx.add(Einsum(equation=equation), operands, suffix="op").out_port(0)]
