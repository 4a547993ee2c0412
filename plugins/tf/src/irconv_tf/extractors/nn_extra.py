"""TensorFlow further neural-network ops: LRN, image patches, per-channel fake quantisation,
3-D transposed convolution, TensorArray closing, NonMaxSuppression (v1) and greedy CTC
decoding.

Channels-last ops are marked ``NHWC``/``NDHWC`` as in ``nn``: the layout plugin wraps them in
transposes to OpenVINO's channels-first form.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv.types import ElementType, is_static
from irconv_opset import (
    LRN,
    Add,
    AvgPool,
    Concat,
    Convert,
    ConvolutionBackpropData,
    CumSum,
    ExtractImagePatches,
    FakeQuantize,
    Floor,
    Gather,
    GatherND,
    Less,
    LogicalAnd,
    Maximum,
    Minimum,
    Multiply,
    Negative,
    NonZero,
    NotEqual,
    Pad,
    Power,
    Range,
    ReduceMax,
    ReduceSum,
    Select,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
    TopK,
    Transpose,
    Unsqueeze,
)

from irconv_tf.extractors._base import NHWC, channels_last, const_input, int_const, laid_out, spatial, table
from irconv_tf.extractors.detection import lower_nms
from irconv_tf.extractors.quantize import nudged_range


def _lrn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TF: x / (bias + alpha * sum(x[..., d - r : d + r + 1] ** 2)) ** beta over the last axis.

    OpenVINO's LRN divides ``alpha`` by the window size (``size ** len(axes)``), so the TF
    alpha is multiplied by it; the window is the channels axis of the NCHW form. The CPU
    plugin computes the transposed form with a bias of 1 whatever the attribute says, so a
    positive bias b is taken out: x / (b + a s) ** beta = b ** -beta * x / (1 + (a / b) s) ** beta.
    The CPU plugin has no LRN for an unknown number of channels: that, and a bias <= 0,
    take the decomposed form.
    """
    radius = int(ctx.attr("depth_radius", 5))
    alpha, beta, bias = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 0.5)), float(ctx.attr("bias", 1.0))
    size = 2 * radius + 1
    dtype = ctx.input_type(0).numpy if ctx.input_type(0) is not ElementType.dynamic else np.dtype(np.float32)
    shape = ctx.input_shape(0)
    if bias <= 0.0 or shape is None or len(shape) != 4 or shape[-1] is None:
        return [_lrn_decomposed(ctx, radius, alpha, beta, bias, dtype)]
    op = LRN(alpha=alpha / bias * size, beta=beta, bias=1.0, size=size)
    (normalized,) = laid_out(ctx, op, [ctx.input(0), int_const(ctx, [1], "axes")], NHWC)
    if bias == 1.0:
        return [normalized]
    scale = ctx.const(np.asarray(bias**-beta, dtype), suffix="bias_scale")
    return [ctx.op(Multiply(), normalized, scale, suffix="scaled")]


def _lrn_decomposed(
    ctx: ExtractContext, radius: int, alpha: float, beta: float, bias: float, dtype: np.dtype
) -> OutPort:
    """LRN as x * (bias + alpha * window_sum(x * x)) ** -beta. The window sums are averages
    over zero-padded windows of 2r+1 channels (the NHWC squares seen as a rank-5 NCDHW tensor
    [N, H, W, 1, C], pooled along its last axis) times the window size."""
    size = 2 * radius + 1
    x = ctx.input(0)
    squares = ctx.op(Multiply(), x, x, suffix="squares")
    as_5d = ctx.op(Unsqueeze(), squares, int_const(ctx, [3], "axis"), suffix="squares_5d")
    pool = AvgPool(
        strides=(1, 1, 1),
        kernel=(1, 1, size),
        pads_begin=(0, 0, radius),
        pads_end=(0, 0, radius),
        exclude_pad=False,
        auto_pad="explicit",  # type: ignore[arg-type]
        rounding_type="floor",  # type: ignore[arg-type]
    )
    means = ctx.op(Squeeze(), ctx.op(pool, as_5d, suffix="window_means"), int_const(ctx, [3], "axis"))
    scaled = ctx.op(Multiply(), means, ctx.const(np.asarray(alpha * size, dtype), suffix="alpha"), suffix="scaled")
    base = ctx.op(Add(), scaled, ctx.const(np.asarray(bias, dtype), suffix="bias"), suffix="base")
    factor = ctx.op(Power(), base, ctx.const(np.asarray(-beta, dtype), suffix="minus_beta"), suffix="factor")
    return ctx.op(Multiply(), x, factor, suffix="normalized")


def _extract_image_patches(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ExtractImagePatches-3 on the NCHW form; its output depth is ordered (row, column,
    channel) like TF's ``[..., kh * kw * C]``."""
    kind = ctx.attr("padding")
    pads = {"SAME": "same_upper", "VALID": "valid"}
    if kind not in pads:
        raise ConversionError(f"node {node.name!r}: unknown padding {kind!r}")
    op = ExtractImagePatches(
        sizes=list(spatial(ctx.attr("ksizes"), ctx)),
        strides=list(spatial(ctx.attr("strides"), ctx)),
        rates=list(spatial(ctx.attr("rates"), ctx)),
        auto_pad=pads[kind],
    )
    return laid_out(ctx, op, [ctx.input(0)], NHWC)


def _fake_quant_per_channel(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """FakeQuantWithMinMaxVarsPerChannel: constant [d] min/max, one nudged range per entry
    of the last axis (FakeQuantize broadcasts the [d] limits along it).

    The CPU plugin quantises a tensor of dynamic shape per channel along axis 1 only; there
    TF's own arithmetic is spelled out: floor((clamp(x) - min) / scale + 0.5) * scale + min.
    """
    lows = np.asarray(const_input(ctx, 1, "min"), np.float32).reshape(-1)
    highs = np.asarray(const_input(ctx, 2, "max"), np.float32).reshape(-1)
    bits, narrow = int(ctx.attr("num_bits", 8)), bool(ctx.attr("narrow_range", False))
    ranges = [nudged_range(float(lo), float(hi), bits, narrow) for lo, hi in zip(lows, highs, strict=True)]
    levels = (1 << bits) - (1 if narrow else 0)
    nudged_min = np.array([r[0] for r in ranges], np.float32)
    nudged_max = np.array([r[1] for r in ranges], np.float32)
    lo_port = ctx.const(nudged_min, suffix="nudged_min")
    hi_port = ctx.const(nudged_max, suffix="nudged_max")
    shape = ctx.input_shape(0)
    if is_static(shape) or (shape is not None and len(shape) == 2):
        return [ctx.op(FakeQuantize(levels=levels), ctx.input(0), lo_port, hi_port, lo_port, hi_port)]
    scale = (highs - lows) / np.float32(levels - 1)  # TF's scale, from the requested range
    clamped = ctx.op(Minimum(), ctx.op(Maximum(), ctx.input(0), lo_port), hi_port, suffix="clamped")
    shifted = ctx.op(Subtract(), clamped, lo_port, suffix="shifted")
    steps = ctx.op(Multiply(), shifted, ctx.const(np.float32(1.0) / scale, suffix="inverse_scale"))
    steps = ctx.op(Floor(), ctx.op(Add(), steps, ctx.const(np.float32(0.5), suffix="half")), suffix="steps")
    scaled = ctx.op(Multiply(), steps, ctx.const(scale, suffix="scale"), suffix="scaled")
    return [ctx.op(Add(), scaled, lo_port, suffix="quantized")]


def _conv3d_backprop_input(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Conv3DBackpropInputV2 -> ConvolutionBackpropData, as Conv2DBackpropInput in ``nn``:
    the forward conv's padding for the requested result size, as explicit pads (SAME: the
    total max((ceil(out/s) - 1) * s + k_eff - out, 0), smaller half first), and
    ``output_padding`` for what the transposed conv's natural size leaves out."""
    rank = 5
    # filters [D, H, W, C_result, C_data] -> [C_data, C_result, D, H, W]
    kernel = const_input(ctx, 1, "filter").shape[:3]
    filters = ctx.op(Transpose(), ctx.input(1), int_const(ctx, [4, 3, 0, 1, 2], "perm"), suffix="filters")
    sizes = [int(v) for v in const_input(ctx, 0, "input_sizes").reshape(-1)]
    out_spatial = sizes[1:4] if channels_last(ctx) else sizes[2:5]
    ones = [1] * rank
    strides = spatial(ctx.attr("strides", ones), ctx, rank)
    dilations = spatial(ctx.attr("dilations", ones), ctx, rank)
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
            raise ConversionError(f"node {node.name!r}: padding {kind!r} is not supported for Conv3DBackpropInputV2")
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
    return laid_out(ctx, op, [ctx.input(2), filters], "NDHWC" if channels_last(ctx) else None)


def _tensor_array_close(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Closing a TensorArray frees its resource: no data output, nothing to compute."""
    return []


def _nms_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """NonMaxSuppression (v1) is V2 with ``iou_threshold`` an attribute."""
    iou = ctx.const(np.float32(ctx.attr("iou_threshold", 0.5)), suffix="iou_threshold")
    return lower_nms(ctx, 2, ctx.input(0), ctx.input(1), ctx.input(2), iou)


def _ctc_greedy_decoder(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Best path per sequence: the top class at each step t < sequence_length[b] (first index
    on ties), blanks dropped and, with ``merge_repeated``, a class equal to the previous step's
    top class dropped. Outputs: the sparse decoding (indices [n, 2], values [n], dense shape
    [batch, longest]) and log_probability [batch, 1] = -sum of the steps' top logits."""
    i64 = ElementType.i64
    logits = ctx.input(0)  # [T, B, C]
    dtype = ctx.input_type(0).numpy if ctx.input_type(0) is not ElementType.dynamic else np.dtype(np.float32)
    top = ctx.add(
        TopK(axis=2, mode="max", sort="value", index_element_type=i64, stable=True),
        [logits, int_const(ctx, 1, "k")],
        suffix="TopK",
    )
    to_bt = int_const(ctx, [1, 0], "to_batch_major")
    last = int_const(ctx, [2], "class_axis")
    best = ctx.op(Transpose(), ctx.op(Squeeze(), top.out_port(0), last), to_bt, suffix="best_logits")  # [B, T]
    classes = ctx.op(Transpose(), ctx.op(Squeeze(), top.out_port(1), last), to_bt, suffix="classes")  # [B, T]
    dims = ctx.op(ShapeOf(output_type=i64), logits, suffix="dims")
    zero = int_const(ctx, 0, "zero")
    steps = ctx.op(Gather(batch_dims=0), dims, zero, zero, suffix="max_time")
    times = ctx.op(Range(output_type=i64), zero, steps, int_const(ctx, 1, "one"), suffix="times")
    lengths = ctx.op(Convert(destination_type=i64), ctx.input(1), suffix="lengths")
    active = ctx.op(
        Less(),
        ctx.op(Unsqueeze(), times, int_const(ctx, [0], "axis0")),
        ctx.op(Unsqueeze(), lengths, int_const(ctx, [1], "axis1")),
        suffix="active",
    )  # [B, T]
    no_score = ctx.const(np.zeros((), dtype), suffix="no_score")
    picked = ctx.op(Select(), active, best, no_score, suffix="counted_logits")
    total = ctx.op(ReduceSum(keep_dims=True), picked, int_const(ctx, [1], "time_axis"), suffix="total")
    log_probability = ctx.op(Negative(), total, suffix="log_probability")
    blank_index = int(ctx.attr("blank_index", -1))
    if blank_index < 0:
        n_classes = ctx.op(Gather(batch_dims=0), dims, int_const(ctx, 2, "classes_dim"), zero)
        blank = ctx.op(Add(), n_classes, int_const(ctx, blank_index, "blank_offset"), suffix="blank")
    else:
        blank = int_const(ctx, blank_index, "blank")
    keep = ctx.op(LogicalAnd(), active, ctx.op(NotEqual(), classes, blank), suffix="not_blank")
    if bool(ctx.attr("merge_repeated", True)):
        earlier = ctx.op(
            Slice(),
            classes,
            int_const(ctx, [0], "start"),
            int_const(ctx, [-1], "stop"),
            int_const(ctx, [1], "step"),
            int_const(ctx, [1], "time_axis"),
        )
        previous = ctx.op(
            Pad(pad_mode="constant"),
            earlier,
            int_const(ctx, [0, 1], "pads_begin"),
            int_const(ctx, [0, 0], "pads_end"),
            int_const(ctx, -1, "none"),
            suffix="previous",
        )
        keep = ctx.op(LogicalAnd(), keep, ctx.op(NotEqual(), classes, previous), suffix="kept")
    where = ctx.op(NonZero(output_type=i64), keep, suffix="where")  # [2, n]
    pairs = ctx.op(Transpose(), where, to_bt, suffix="pairs")  # [n, 2]: (batch, time)
    values = ctx.op(GatherND(batch_dims=0), classes, pairs, suffix="values")
    kept = ctx.op(Convert(destination_type=i64), keep, suffix="kept_i64")
    positions = ctx.op(CumSum(exclusive=True), kept, int_const(ctx, 1, "time_axis_scalar"), suffix="positions")
    batch = ctx.op(Gather(batch_dims=0), where, int_const(ctx, [0], "batch_row"), zero, suffix="batch_row")
    position = ctx.op(
        Unsqueeze(), ctx.op(GatherND(batch_dims=0), positions, pairs), int_const(ctx, [0], "axis0"), suffix="position"
    )
    indices = ctx.op(Transpose(), ctx.op(Concat(axis=0), batch, position), to_bt, suffix="indices")
    counts = ctx.op(ReduceSum(keep_dims=False), kept, int_const(ctx, [1], "time_axis"), suffix="counts")
    longest = ctx.op(
        ReduceMax(keep_dims=True),
        ctx.op(Concat(axis=0), int_const(ctx, [0], "none_kept"), counts),
        int_const(ctx, [0], "axis0"),
        suffix="longest",
    )
    batch_dim = ctx.op(Slice(), dims, int_const(ctx, [1], "b"), int_const(ctx, [2], "b_end"), int_const(ctx, [1], "s"))
    dense_shape = ctx.op(Concat(axis=0), batch_dim, longest, suffix="dense_shape")
    return [indices, values, dense_shape, log_probability]


def extractors() -> list[Extractor]:
    return table(
        {
            "LRN": (_lrn, "LRN"),
            "ExtractImagePatches": (_extract_image_patches, "ExtractImagePatches"),
            "FakeQuantWithMinMaxVarsPerChannel": (_fake_quant_per_channel, "FakeQuantize"),
            "Conv3DBackpropInputV2": (_conv3d_backprop_input, "ConvolutionBackpropData"),
            "TensorArrayCloseV3": (_tensor_array_close, ""),
            "NonMaxSuppression": (_nms_v1, "NonMaxSuppression"),
            "CTCGreedyDecoder": (_ctc_greedy_decoder, "TopK, NonZero, GatherND, CumSum"),
        }
    )
