"""Neural-network TF ops: convolutions, pooling, batch norm, matrix products, resizing.

Convolutions, pooling and depth/space rearrangements compute in the model's layout: the
node is marked ``NHWC`` and the layout plugin wraps it in transposes (front phase) and
sinks/cancels them (middle phase). Weights are rearranged here into the IR's forms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import aliases, extractor, i64, input_constant, numpy_dtype, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    AvgPool,
    Convert,
    DepthToSpace,
    Divide,
    Einsum,
    Gather,
    Interpolate,
    MatMul,
    Maximum,
    MaxPool_v1,
    Multiply,
    ReduceMean,
    ReduceProd,
    ReduceSum,
    Reshape,
    ShapeOf,
    Slice,
    SpaceToDepth,
    Sqrt,
    Subtract,
    Transpose,
)
from irconv_opset.build import all_axes
from irconv_opset.lowering.convolution import (
    CHANNELS_LAST_CONVOLUTION_OPS,
    CONVOLUTION_BACKPROP_OPS,
    ChannelsLastConvolution,
    FilterLayout,
    PadSplit,
    Window,
    channels_last_convolution,
    convolution_backprop,
    filters_first,
    full_transposed_size,
    padding_for_output_size,
)
from irconv_opset.lowering.layout import LayoutMark
from irconv_opset.lowering.pooling import PoolWindow, avg_pool, max_pool
from irconv_opset.lowering.resize import tf_resize_coordinates

from irconv_tf.dtypes import element_type
from irconv_tf.extractors._base import channels_last, laid_out, on_inputs, spatial


def _window(ctx: ExtractContext, rank: int = 4, strides: Sequence[int] | None = None) -> Window:
    """The window of a TF conv/pool: its strides, dilations and ``padding`` attribute."""
    kind = ctx.attrs.str("padding")
    steps = spatial(ctx, "strides", rank, optional=True) if strides is None else tuple(strides)
    dilations = spatial(ctx, "dilations", rank, optional=True)
    if kind in ("SAME", "VALID"):
        return Window.of(steps, dilations, auto_pad="same_upper" if kind == "SAME" else "valid")
    if kind == "EXPLICIT":
        pads = ctx.attrs.ints("explicit_paddings")
        pairs = [pads[i : i + 2] for i in range(0, len(pads), 2)]
        inner = pairs[1:-1] if channels_last(ctx) else pairs[2:]
        return Window.of(steps, dilations, [int(p[0]) for p in inner], [int(p[1]) for p in inner])
    raise ConversionError(f"{ctx.where()}: unknown padding {quoted(kind)}")


def _layout(ctx: ExtractContext, rank: int = 4) -> LayoutMark | None:
    """The channels-last layout mark of a rank-4 (NHWC) or rank-5 (NDHWC) op, or None."""
    return LayoutMark.for_rank(rank) if channels_last(ctx) else None


def _conv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Conv2D (rank 4) and Conv3D (rank 5): filters [spatial..., I, O] -> [O, I, spatial...]."""
    rank = _rank_of(ctx)
    conv = ChannelsLastConvolution(_window(ctx, rank), ctx.input(1), FilterLayout.SPATIAL_IN_OUT)
    return channels_last_convolution(ctx, ctx.input(0), conv, _placer(ctx, _layout(ctx, rank)))[:1]


def _placer(ctx: ExtractContext, layout: LayoutMark | None) -> Callable[[Op, list[OutPort]], list[OutPort]]:
    return lambda op, inputs: laid_out(ctx, op, inputs, layout)


@extractor("tf", "DepthwiseConv2dNative", produces=[*CHANNELS_LAST_CONVOLUTION_OPS])
def _depthwise(node: Node, ctx: ExtractContext) -> list[OutPort]:
    weights = input_constant(ctx, 1, "filter")  # [H, W, C, M]
    conv = ChannelsLastConvolution(_window(ctx), weights, FilterLayout.SPATIAL_CHANNEL_MULTIPLIER)
    return channels_last_convolution(ctx, ctx.input(0), conv, _placer(ctx, _layout(ctx)))


@extractor("tf", "Conv2DBackpropInput", produces=[*CONVOLUTION_BACKPROP_OPS, Transpose, Convert, Gather, Subtract, Maximum, Divide, Add, Slice])
def _conv2d_backprop_input(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The forward conv's padding, from the result size TF asks for, as explicit pads."""
    # the filter may be computed: only its (static) kernel size matters here
    filter_shape = ctx.input_shape(1)
    kernel = tuple(k for k in filter_shape[:2] if k is not None) if filter_shape is not None else ()
    if filter_shape is None or len(filter_shape) != 4 or len(kernel) != 2:
        raise ConversionError(f"{ctx.where()}: Conv2DBackpropInput needs the filter's kernel size known")
    if ctx.input_value(0) is None:
        return _computed_size_backprop_input(node, ctx, kernel)
    sizes = input_constant(ctx, 0, "input_sizes").reshape(-1)
    out_spatial = [int(v) for v in (sizes[1:3] if channels_last(ctx) else sizes[2:4])]
    return backprop_for_result_size(ctx, out_spatial, kernel)


def _backprop_window(ctx: ExtractContext, rank: int) -> tuple[Window, str]:
    return Window.of(spatial(ctx, "strides", rank, optional=True), spatial(ctx, "dilations", rank, optional=True)), \
        ctx.attrs.str("padding")


def _backprop(ctx: ExtractContext, rank: int, window: Window, output_padding: Sequence[int] | None = None,
              output_shape: OutPort | None = None) -> OutPort:
    """ConvolutionBackpropData of the data (input 2) with TF's filters [k..., C_result, C_data]
    (input 1), in the model's layout."""
    filters = filters_first(ctx, ctx.input(1), FilterLayout.SPATIAL_OUT_IN)
    layout = _layout(ctx, rank)
    return convolution_backprop(ctx, ctx.input(2), filters, window, output_padding, output_shape=output_shape,
                                place=lambda op, inputs: laid_out(ctx, op, inputs, layout)[0])


def backprop_for_result_size(ctx: ExtractContext, out_spatial: Sequence[int], kernel: Sequence[int]) -> list[OutPort]:
    """Conv2DBackpropInput and Conv3DBackpropInputV2 with a constant result size: the data
    size TF derives from it (SAME: ceil(out / s); VALID: ceil((out - k_eff + 1) / s)), the
    forward conv's padding as explicit pads, the smaller half first, and ``output_padding``
    for what the natural size leaves out."""
    window, kind = _backprop_window(ctx, len(kernel) + 2)
    strides, dilations = window.strides, window.dilations
    if kind == "SAME":
        data = [-(-out // s) for out, s in zip(out_spatial, strides, strict=True)]
    elif kind == "VALID":
        reach = [(k - 1) * d for k, d in zip(kernel, dilations, strict=True)]
        data = [-(-(out - r) // s) for out, r, s in zip(out_spatial, reach, strides, strict=True)]
    else:
        raise ConversionError(f"{ctx.where()}: padding {quoted(kind)} is not supported for a transposed convolution")
    padding = padding_for_output_size(data, kernel, window, out_spatial, PadSplit.END)
    explicit = Window(strides, dilations, padding.pads_begin, padding.pads_end)
    return [_backprop(ctx, len(kernel) + 2, explicit, padding.output_padding)]


def _computed_size_backprop_input(node: Node, ctx: ExtractContext, kernel: tuple[int, ...]) -> list[OutPort]:
    """input_sizes computed in the graph: its spatial entries become the op's output_shape
    input, from which the runtime deduces the pads. TF's SAME puts the smaller half of the
    forward pads first; for a transposed convolution that is OpenVINO's ``same_lower``
    (checked against TensorFlow with odd and even sizes). The CPU plugin compiles this only
    when the data shape is dynamic too (as when the sizes come from ``tf.shape``); static
    data takes the cropped form."""
    window, kind = _backprop_window(ctx, 4)
    if kind not in ("SAME", "VALID"):
        raise ConversionError(f"{ctx.where()}: padding {quoted(kind)} is not supported for Conv2DBackpropInput")
    axes = [1, 2] if channels_last(ctx) else [2, 3]
    sizes = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(0), suffix="input_sizes")
    output_shape = ctx.op(Gather(), sizes, i64(ctx, axes, "spatial_axes"), i64(ctx, 0, "axis"), suffix="output_shape")
    data_shape = ctx.input_shape(2)
    if data_shape is not None and len(data_shape) == 4 and None not in data_shape:
        in_spatial = [d for d in (data_shape[a] for a in axes) if d is not None]
        return _cropped_backprop_input(ctx, window, kind, kernel, in_spatial, output_shape, axes)
    auto = Window.of(window.strides, window.dilations, auto_pad="same_lower" if kind == "SAME" else "valid")
    return [_backprop(ctx, 4, auto, output_shape=output_shape)]


def _cropped_backprop_input(
    ctx: ExtractContext,
    window: Window,
    kind: str,
    kernel: tuple[int, ...],
    in_spatial: list[int],
    out_spatial: OutPort,
    axes: list[int],
) -> list[OutPort]:
    """A computed result size for static data (the CPU plugin refuses an ``output_shape``
    input then): the whole transposed convolution, ``(in - 1) * s + k_eff`` plus ``s - 1``
    zero positions (``output_padding``) per axis, cropped to ``out`` positions from the
    forward conv's leading pad (SAME: max((in - 1) * s + k_eff - out, 0) // 2; VALID: 0)."""
    covered = [full_transposed_size(size, k, s, d)
               for size, k, s, d in zip(in_spatial, kernel, window.strides, window.dilations, strict=True)]
    full = _backprop(ctx, 4, window, [s - 1 for s in window.strides])
    if kind == "SAME":
        overlap = ctx.op(Subtract(), i64(ctx, covered, "covered"), out_spatial, suffix="forward_pads")
        overlap = ctx.op(Maximum(), overlap, i64(ctx, [0, 0], "no_pad"), suffix="forward_pads_clamped")
        begin = ctx.op(Divide(m_pythondiv=True), overlap, i64(ctx, [2, 2], "halves"), suffix="crop_begin")
    else:
        begin = i64(ctx, [0, 0], "crop_begin")
    end = ctx.op(Add(), begin, out_spatial, suffix="crop_end")
    return [ctx.op(Slice(), full, begin, end, i64(ctx, [1, 1], "crop_step"), i64(ctx, axes, "crop_axes"))]


def _rank_of(ctx: ExtractContext) -> int:
    """The input rank a 2D (4) or 3D (5) convolution or pooling op works on."""
    return 5 if ctx.source_op.op_type.endswith("3D") else 4


def _pool(node: Node, ctx: ExtractContext) -> list[OutPort]:
    kind, rank = ("max" if ctx.source_op.op_type.startswith("Max") else "avg"), _rank_of(ctx)
    return _pooled(ctx, kind, rank, spatial(ctx, "ksize", rank), spatial(ctx, "strides", rank))


def _pooled(ctx: ExtractContext, kind: str, rank: int, kernel: tuple[int, ...], strides: tuple[int, ...]
            ) -> list[OutPort]:
    """MaxPool-1 or AvgPool (padding left out of the mean, as TF's) in the model's layout."""
    w = _window(ctx, rank, strides)
    pool = PoolWindow(kernel, Window(w.strides, (1,) * len(kernel), w.pads_begin, w.pads_end, w.auto_pad))
    layout = _layout(ctx, rank)

    def place(op: Op, inputs: list[OutPort]) -> Node:
        return laid_out(ctx, op, inputs, layout)[0].node

    if kind == "max":
        return [max_pool(ctx, ctx.input(0), pool, values_only=True, place=place).out_port(0)]
    return [avg_pool(ctx, ctx.input(0), pool, exclude_pad=True, place=place)]


def _fused_batch_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """y = x * scale' + shift' with scale' = scale / sqrt(var + eps), shift' = offset - mean * scale'.
    TF computes in the statistics' type U (float32) whatever the data type T (half inputs
    included) and returns y in T. In training mode the statistics are the batch's own (over
    every axis but the channels); the mean/variance outputs are then the batch mean and the
    Bessel-corrected variance, blended into the running ones by ``exponential_avg_factor``.
    """
    rank = require_rank(ctx, 0)
    data_type, stat_type = ctx.input_type(0), ctx.input_type(1)
    x = ctx.input(0)
    if stat_type is not ElementType.dynamic and data_type is not stat_type:
        x = ctx.op(Convert(destination_type=stat_type), x, suffix="as_statistics_type")
    channel_axis = rank - 1 if channels_last(ctx) else 1
    mean, var = ctx.input(3), ctx.input(4)
    out_mean, out_var = mean, var
    if ctx.attrs.bool("is_training", False):
        axes = i64(ctx, [a for a in range(rank) if a != channel_axis], "batch_axes")
        flat = i64(ctx, [-1], "flat")
        batch_mean = ctx.op(ReduceMean(keep_dims=False), x, axes, suffix="batch_mean")
        centered = ctx.op(Subtract(), x, _per_channel(ctx, batch_mean, rank, channel_axis), suffix="centered")
        squares = ctx.op(Multiply(), centered, centered, suffix="squares")
        batch_var = ctx.op(ReduceMean(keep_dims=False), squares, axes, suffix="batch_variance")
        mean, var = batch_mean, batch_var
        shape = ctx.op(ShapeOf(), x, suffix="shape")
        dims = ctx.op(Gather(batch_dims=0), shape, axes, i64(ctx, 0, "ax"), suffix="reduced_dims")
        count = ctx.op(ReduceProd(keep_dims=False), dims, i64(ctx, 0, "ax0"), suffix="count_i")
        count_f = ctx.op(Convert(destination_type=stat_type), count, suffix="count")
        one = ctx.const(np.array(1.0, numpy_dtype(stat_type)), suffix="one")
        corrected = ctx.op(
            Multiply(), batch_var, ctx.op(Divide(m_pythondiv=False), count_f, ctx.op(Subtract(), count_f, one))
        )
        factor = ctx.attrs.float("exponential_avg_factor", 1.0)
        out_mean, out_var = batch_mean, corrected
        if factor != 1.0:
            keep = ctx.const(np.array(1.0 - factor, numpy_dtype(stat_type)), suffix="keep")
            take = ctx.const(np.array(factor, numpy_dtype(stat_type)), suffix="take")

            def blend(old: OutPort, new: OutPort) -> OutPort:
                return ctx.op(Add(), ctx.op(Multiply(), old, keep), ctx.op(Multiply(), new, take))

            out_mean, out_var = blend(ctx.input(3), batch_mean), blend(ctx.input(4), corrected)
        out_mean = ctx.op(Reshape(special_zero=False), out_mean, flat, suffix="mean_out")
        out_var = ctx.op(Reshape(special_zero=False), out_var, flat, suffix="variance_out")
    eps = ctx.const(np.array(ctx.attrs.float("epsilon", 1e-4), numpy_dtype(stat_type)), suffix="epsilon")
    std = ctx.op(Sqrt(), ctx.op(Add(), var, eps, suffix="var_eps"), suffix="std")
    scale = ctx.op(Divide(m_pythondiv=False), ctx.input(1), std, suffix="scale")
    shift = ctx.op(Subtract(), ctx.input(2), ctx.op(Multiply(), mean, scale, suffix="mean_scale"), suffix="shift")
    scale = _per_channel(ctx, scale, rank, channel_axis)
    shift = _per_channel(ctx, shift, rank, channel_axis)
    y = ctx.op(Add(), ctx.op(Multiply(), x, scale, suffix="mul"), shift, suffix="add")
    if x is not ctx.input(0):
        y = ctx.op(Convert(destination_type=data_type), y, suffix="as_data_type")
    return [y, out_mean, out_var, mean, var, mean]


def _per_channel(ctx: ExtractContext, values: OutPort, rank: int, channel_axis: int) -> OutPort:
    """A [C] vector shaped to broadcast along ``channel_axis`` of a rank-``rank`` tensor."""
    if channel_axis == rank - 1:
        return values
    shape = [-1] + [1] * (rank - 1 - channel_axis)
    return ctx.op(Reshape(special_zero=False), values, i64(ctx, shape, "channel_shape"))


@extractor("tf", "MatMul", produces=[MatMul])
def _matmul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, MatMul(transpose_a=ctx.attrs.bool("transpose_a", False), transpose_b=ctx.attrs.bool("transpose_b", False)))


def _batch_matmul(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """BatchMatMulV3's ``Tout`` may be wider than its inputs (int8 x int8 -> int32): the
    products are computed in ``Tout``, so the inputs are converted first, never the result."""
    out = element_type(ctx.attrs.int("Tout"), ctx.where()) if "Tout" in ctx.attrs else None
    inputs = []
    for i in (0, 1):
        port = ctx.input(i)
        if out is not None and ctx.input_type(i) is not out:
            port = ctx.op(Convert(destination_type=out), port, suffix=f"input{i}_as_{out.value}")
        inputs.append(port)
    op = MatMul(transpose_a=ctx.attrs.bool("adj_x", False), transpose_b=ctx.attrs.bool("adj_y", False))
    return [ctx.op(op, *inputs, suffix="MatMul")]


@extractor("tf", "Einsum", produces=[Einsum])
def _einsum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Einsum(equation=ctx.attrs.str("equation")))


#: Interpolate's mode for each TF resize op.
_RESIZE_MODES = {"ResizeBilinear": "linear", "ResizeNearestNeighbor": "nearest"}


def _resize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    mode = _RESIZE_MODES[ctx.source_op.op_type]
    align_corners = ctx.attrs.bool("align_corners", False)
    half_pixel = ctx.attrs.bool("half_pixel_centers", False)
    if align_corners and half_pixel:
        raise ConversionError(f"{ctx.where()}: align_corners and half_pixel_centers cannot both be set")
    transform, nearest = tf_resize_coordinates(mode == "nearest", align_corners, half_pixel)
    op = Interpolate(
        mode=mode,
        shape_calculation_mode="sizes",
        coordinate_transformation_mode=transform,
        nearest_mode=nearest,
        antialias=False,
        pads_begin=(0, 0, 0, 0),
        pads_end=(0, 0, 0, 0),
    )
    images = ctx.input(0)
    if mode == "linear" and ctx.input_type(0) is not ElementType.f32:
        # ResizeBilinear returns float32 whatever the image type (uint8 photos included)
        images = ctx.op(Convert(destination_type=ElementType.f32), images, suffix="as_float")
    axes = i64(ctx, [1, 2], "axes")
    return [ctx.op(op, images, ctx.input(1), axes)]


def _depth_space(node: Node, ctx: ExtractContext, make: Callable[[int], Op]) -> list[OutPort]:
    ctx.attrs.choice("data_format", ["NHWC", "NCHW"], "NHWC")
    return laid_out(ctx, make(ctx.attrs.int("block_size")), [ctx.input(0)], _layout(ctx))


@extractor("tf", "MaxPoolV2", produces=[MaxPool_v1])
def _max_pool_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MaxPoolV2: ksize and strides are (constant) inputs instead of attributes."""
    ksize = [int(v) for v in input_constant(ctx, 1, "ksize").reshape(-1)]
    strides = [int(v) for v in input_constant(ctx, 2, "strides").reshape(-1)]
    return _pooled(ctx, "max", 4, spatial(ctx, "ksize", values=ksize), spatial(ctx, "strides", values=strides))


@extractor("tf", "L2Loss", produces=[Multiply, ReduceSum])
def _l2_loss(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """sum(x^2) / 2 over every element."""
    squares = ctx.op(Multiply(), ctx.input(0), ctx.input(0), suffix="squares")
    total = ctx.op(ReduceSum(keep_dims=False), squares, all_axes(ctx, ctx.input(0)), suffix="sum")
    half = ctx.const(np.array(0.5, ctx.input_type(0).numpy), suffix="half")
    return [ctx.op(Multiply(), total, half)]


FUSED_BATCH_NORM = aliases("tf", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"], _fused_batch_norm, produces=[Convert, ReduceMean, Subtract, Multiply, ShapeOf, Gather, ReduceProd, Divide, Add, Reshape, Sqrt])
BATCH_MAT_MUL = aliases("tf", ["BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"], _batch_matmul, produces=[MatMul, Convert])
CONV = aliases("tf", ["Conv2D", "Conv3D"], _conv, produces=[*CHANNELS_LAST_CONVOLUTION_OPS])
MAX_POOL = aliases("tf", ["MaxPool", "MaxPool3D"], _pool, produces=[MaxPool_v1])
AVG_POOL = aliases("tf", ["AvgPool", "AvgPool3D"], _pool, produces=[AvgPool])
RESIZE = aliases("tf", list(_RESIZE_MODES), _resize, produces=[Interpolate, Convert])


@extractor("tf", "DepthToSpace", produces=[DepthToSpace])
def _depth_to_space(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _depth_space(node, ctx, lambda b: DepthToSpace(mode="blocks_first", block_size=b))


@extractor("tf", "SpaceToDepth", produces=[SpaceToDepth])
def _space_to_depth(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _depth_space(node, ctx, lambda b: SpaceToDepth(mode="blocks_first", block_size=b))
