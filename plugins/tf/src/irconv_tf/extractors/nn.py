"""Neural-network TF ops: convolutions, pooling, batch norm, matrix products, resizing.

Convolutions, pooling and depth/space rearrangements compute in the model's layout: the
node is marked ``NHWC`` and the layout plugin wraps it in transposes (front phase) and
sinks/cancels them (middle phase). Weights are rearranged here into the IR's forms.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor
from irconv_opset import (
    Add,
    AvgPool,
    Convolution,
    ConvolutionBackpropData,
    DepthToSpace,
    Divide,
    Einsum,
    GroupConvolution,
    Interpolate,
    MatMul,
    MaxPool_v1,
    Multiply,
    Reshape,
    SpaceToDepth,
    Sqrt,
    Subtract,
    Transpose,
)

from irconv_tf.extractors._base import NHWC, channels_last, const_input, int_const, laid_out, spatial, table


def _padding(ctx: ExtractContext, rank: int = 4) -> dict[str, object]:
    """auto_pad and explicit pads of a TF conv/pool ``padding`` attribute."""
    kind = ctx.attr("padding")
    zeros = (0,) * (rank - 2)
    if kind == "SAME":
        return {"auto_pad": "same_upper", "pads_begin": zeros, "pads_end": zeros}
    if kind == "VALID":
        return {"auto_pad": "valid", "pads_begin": zeros, "pads_end": zeros}
    if kind == "EXPLICIT":
        pads = list(ctx.attr("explicit_paddings"))
        pairs = [pads[i : i + 2] for i in range(0, len(pads), 2)]
        inner = pairs[1:-1] if channels_last(ctx) else pairs[2:]
        return {
            "auto_pad": "explicit",
            "pads_begin": tuple(int(p[0]) for p in inner),
            "pads_end": tuple(int(p[1]) for p in inner),
        }
    raise ConversionError(f"node {ctx.node.name!r}: unknown padding {kind!r}")


def _layout(ctx: ExtractContext) -> str | None:
    return NHWC if channels_last(ctx) else None


def _conv2d(node: Node, ctx: ExtractContext) -> list[OutPort]:
    # HWIO -> OIHW
    filters = ctx.op(Transpose(), ctx.input(1), int_const(ctx, [3, 2, 0, 1], "perm"), suffix="filters")
    op = Convolution(
        strides=spatial(ctx.attr("strides", [1, 1, 1, 1]), ctx),
        dilations=spatial(ctx.attr("dilations", [1, 1, 1, 1]), ctx),
        **_padding(ctx),  # type: ignore[arg-type]
    )
    return laid_out(ctx, op, [ctx.input(0), filters], _layout(ctx))[:1]


def _depthwise(node: Node, ctx: ExtractContext) -> list[OutPort]:
    weights = const_input(ctx, 1, "filter")
    h, w, channels, multiplier = weights.shape
    # [H, W, C, M] -> GroupConvolution's [C, M, 1, H, W]
    grouped = np.ascontiguousarray(weights.transpose(2, 3, 0, 1).reshape(channels, multiplier, 1, h, w))
    op = GroupConvolution(
        strides=spatial(ctx.attr("strides", [1, 1, 1, 1]), ctx),
        dilations=spatial(ctx.attr("dilations", [1, 1, 1, 1]), ctx),
        **_padding(ctx),  # type: ignore[arg-type]
    )
    return laid_out(ctx, op, [ctx.input(0), ctx.const(grouped, suffix="filters")], _layout(ctx))


def _conv2d_backprop_input(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The forward conv's padding, from the result size TF asks for, as explicit pads.

    For SAME the forward pads are total = max((ceil(out/s) - 1) * s + k_eff - out, 0), split
    with the smaller half first; ``output_padding`` adds what a VALID/clamped case leaves out.
    """
    # filters [H, W, C_result, C_data] -> [C_data, C_result, H, W]
    kernel = const_input(ctx, 1, "filter").shape[:2]
    filters = ctx.op(Transpose(), ctx.input(1), int_const(ctx, [3, 2, 0, 1], "perm"), suffix="filters")
    sizes = const_input(ctx, 0, "input_sizes").reshape(-1)
    out_spatial = [int(v) for v in (sizes[1:3] if channels_last(ctx) else sizes[2:4])]
    strides = spatial(ctx.attr("strides", [1, 1, 1, 1]), ctx)
    dilations = spatial(ctx.attr("dilations", [1, 1, 1, 1]), ctx)
    kind = ctx.attr("padding")
    begins, ends, extra = [], [], []
    for out, k, s, d in zip(out_spatial, kernel, strides, dilations, strict=True):
        k_eff = (k - 1) * d + 1
        if kind == "SAME":
            data = -(-out // s)
            total = max((data - 1) * s + k_eff - out, 0)
            begin, end = total // 2, total - total // 2
        elif kind == "VALID":
            data = -(-(out - k_eff + 1) // s)
            begin = end = 0
        else:
            raise ConversionError(f"node {node.name!r}: padding {kind!r} is not supported for Conv2DBackpropInput")
        natural = (data - 1) * s + k_eff - begin - end
        begins.append(begin)
        ends.append(end)
        extra.append(out - natural)
    op = ConvolutionBackpropData(
        strides=strides,
        dilations=dilations,
        pads_begin=tuple(begins),
        pads_end=tuple(ends),
        auto_pad="explicit",
        output_padding=tuple(extra),
    )
    return laid_out(ctx, op, [ctx.input(2), filters], _layout(ctx))


def _pool(kind: str):  # type: ignore[no-untyped-def]
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        padding = _padding(ctx)
        common = {
            "strides": spatial(ctx.attr("strides"), ctx),
            "kernel": spatial(ctx.attr("ksize"), ctx),
            "rounding_type": "floor",
            **padding,
        }
        op: Op = MaxPool_v1(**common) if kind == "max" else AvgPool(exclude_pad=True, **common)  # type: ignore[arg-type]
        return laid_out(ctx, op, [ctx.input(0)], _layout(ctx))[:1]

    return extract


def _fused_batch_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """y = x * scale' + shift' with scale' = scale / sqrt(var + eps), shift' = offset - mean * scale'."""
    if ctx.attr("is_training", False):
        # Keras saves inference graphs with is_training=False; training mode needs batch statistics.
        mean, var = ctx.input(3), ctx.input(4)
        if const_input(ctx, 3, "mean").size == 0:
            raise ConversionError(f"node {node.name!r}: FusedBatchNorm in training mode is not supported")
    mean, var = ctx.input(3), ctx.input(4)
    eps = ctx.const(np.array(ctx.attr("epsilon", 1e-3), np.float32), suffix="epsilon")
    std = ctx.op(Sqrt(), ctx.op(Add(), var, eps, suffix="var_eps"), suffix="std")
    scale = ctx.op(Divide(m_pythondiv=False), ctx.input(1), std, suffix="scale")
    shift = ctx.op(Subtract(), ctx.input(2), ctx.op(Multiply(), mean, scale, suffix="mean_scale"), suffix="shift")
    if not channels_last(ctx):
        shape = int_const(ctx, [-1, 1, 1], "channel_shape")
        scale = ctx.op(Reshape(special_zero=False), scale, shape, suffix="scale_nchw")
        shift = ctx.op(Reshape(special_zero=False), shift, shape, suffix="shift_nchw")
    scaled = ctx.op(Multiply(), ctx.input(0), scale, suffix="mul")
    y = ctx.op(Add(), scaled, shift, suffix="add")
    return [y, mean, var, mean, var, mean]


def _matmul(node: Node, ctx: ExtractContext) -> Op:
    return MatMul(transpose_a=bool(ctx.attr("transpose_a", False)), transpose_b=bool(ctx.attr("transpose_b", False)))


def _batch_matmul(node: Node, ctx: ExtractContext) -> Op:
    return MatMul(transpose_a=bool(ctx.attr("adj_x", False)), transpose_b=bool(ctx.attr("adj_y", False)))


def _einsum(node: Node, ctx: ExtractContext) -> Op:
    return Einsum(equation=ctx.attr("equation"))


def _resize(mode: str):  # type: ignore[no-untyped-def]
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        if ctx.attr("align_corners", False):
            transform, nearest = "align_corners", "round_prefer_ceil"
        elif ctx.attr("half_pixel_centers", False):
            transform = "half_pixel" if mode == "linear" else "tf_half_pixel_for_nn"
            nearest = "round_prefer_ceil"
        else:
            transform, nearest = "asymmetric", "floor"
        op = Interpolate(
            mode=mode,
            shape_calculation_mode="sizes",
            coordinate_transformation_mode=transform,
            nearest_mode=nearest,
            antialias=False,
            pads_begin=(0, 0, 0, 0),
            pads_end=(0, 0, 0, 0),
        )
        axes = int_const(ctx, [1, 2], "axes")
        return [ctx.op(op, ctx.input(0), ctx.input(1), axes)]

    return extract


def _depth_space(make):  # type: ignore[no-untyped-def]
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        if ctx.attr("data_format", "NHWC") not in ("NHWC", "NCHW"):
            raise ConversionError(f"node {node.name!r}: data format {ctx.attr('data_format')!r} is not supported")
        return laid_out(ctx, make(int(ctx.attr("block_size"))), [ctx.input(0)], _layout(ctx))

    return extract


def extractors() -> list[Extractor]:
    return table(
        {
            "Conv2D": (_conv2d, "Convolution"),
            "DepthwiseConv2dNative": (_depthwise, "GroupConvolution"),
            "Conv2DBackpropInput": (_conv2d_backprop_input, "ConvolutionBackpropData"),
            "MaxPool": (_pool("max"), "MaxPool"),
            "AvgPool": (_pool("avg"), "AvgPool"),
            "FusedBatchNorm": (_fused_batch_norm, "Multiply, Add"),
            "FusedBatchNormV2": (_fused_batch_norm, "Multiply, Add"),
            "FusedBatchNormV3": (_fused_batch_norm, "Multiply, Add"),
            "MatMul": (_matmul, "MatMul"),
            "BatchMatMul": (_batch_matmul, "MatMul"),
            "BatchMatMulV2": (_batch_matmul, "MatMul"),
            "BatchMatMulV3": (_batch_matmul, "MatMul"),
            "Einsum": (_einsum, "Einsum"),
            "ResizeBilinear": (_resize("linear"), "Interpolate"),
            "ResizeNearestNeighbor": (_resize("nearest"), "Interpolate"),
            "DepthToSpace": (_depth_space(lambda b: DepthToSpace(mode="blocks_first", block_size=b)), "DepthToSpace"),
            "SpaceToDepth": (_depth_space(lambda b: SpaceToDepth(mode="blocks_first", block_size=b)), "SpaceToDepth"),
        }
    )
