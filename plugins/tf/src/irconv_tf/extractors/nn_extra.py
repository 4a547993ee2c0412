"""TensorFlow further neural-network ops: LRN, image patches, per-channel fake quantisation,
3-D transposed convolution, TensorArray closing, NonMaxSuppression (v1), greedy CTC
decoding, hue/saturation adjustment, random number generators and max pooling with argmax.

Channels-last ops are marked ``NHWC``/``NDHWC`` as in ``nn``: the layout plugin wraps them in
transposes to OpenVINO's channels-first form.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import const_like, extractor, i64, input_constant
from irconv.graph import Node, OutPort
from irconv.types import ElementType, is_static
from irconv_opset import (
    Abs,
    Add,
    Concat,
    Convert,
    Cos,
    CumSum,
    Divide,
    Equal,
    ExtractImagePatches,
    FakeQuantize,
    Floor,
    FloorMod,
    Gather,
    GatherND,
    Greater,
    GreaterEqual,
    Inverse,
    Less,
    Log,
    LogicalAnd,
    LogicalOr,
    LogSoftmax,
    Maximum,
    MaxPool,
    Minimum,
    Multiply,
    Negative,
    NonZero,
    NotEqual,
    OneHot,
    Pad,
    RandomUniform,
    Range,
    ReduceMax,
    ReduceProd,
    ReduceSum,
    Reshape,
    Select,
    ShapeOf,
    Slice,
    SoftMax,
    Split,
    Sqrt,
    Squeeze,
    Subtract,
    TopK,
    Transpose,
    Unsqueeze,
)
from irconv_opset.lowering.convolution import CONVOLUTION_BACKPROP_OPS
from irconv_opset.lowering.nms import SINGLE_CLASS_NMS_OPS
from irconv_opset.lowering.normalization import CHANNELS_LAST_LRN_OPS, channels_last_lrn

from irconv_tf.dtypes import element_type
from irconv_tf.extractors._base import NHWC, channels_last, laid_out, on_inputs, spatial
from irconv_tf.extractors.detection import lower_nms
from irconv_tf.extractors.nn import backprop_for_result_size
from irconv_tf.extractors.quantize import nudged_range


@extractor("tf", "LRN", produces=[*CHANNELS_LAST_LRN_OPS])
def _lrn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TF: x / (bias + alpha * sum(x[..., d - r : d + r + 1] ** 2)) ** beta over the last axis."""
    radius = ctx.attrs.int("depth_radius", 5)
    alpha, beta, bias = ctx.attrs.float("alpha", 1.0), ctx.attrs.float("beta", 0.5), ctx.attrs.float("bias", 1.0)
    return [channels_last_lrn(ctx, ctx.input(0), radius, alpha, beta, bias)]


@extractor("tf", "ExtractImagePatches", produces=[ExtractImagePatches])
def _extract_image_patches(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ExtractImagePatches-3 on the NCHW form; its output depth is ordered (row, column,
    channel) like TF's ``[..., kh * kw * C]``."""
    kind = ctx.attrs.str("padding")
    pads = {"SAME": "same_upper", "VALID": "valid"}
    if kind not in pads:
        raise ConversionError(f"{ctx.where()}: unknown padding {quoted(kind)}")
    op = ExtractImagePatches(
        sizes=list(spatial(ctx, "ksizes")),
        strides=list(spatial(ctx, "strides")),
        rates=list(spatial(ctx, "rates")),
        auto_pad=pads[kind],
    )
    return laid_out(ctx, op, [ctx.input(0)], NHWC)


@extractor("tf", "FakeQuantWithMinMaxVarsPerChannel", produces=[FakeQuantize, Add, Floor, Maximum, Minimum, Multiply, Subtract])
def _fake_quant_per_channel(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """FakeQuantWithMinMaxVarsPerChannel: constant [d] min/max, one nudged range per entry
    of the last axis (FakeQuantize broadcasts the [d] limits along it).

    The CPU plugin quantises a tensor of dynamic shape per channel along axis 1 only; there
    TF's own arithmetic is spelled out: floor((clamp(x) - min) / scale + 0.5) * scale + min.
    """
    lows = np.asarray(input_constant(ctx, 1, "min"), np.float32).reshape(-1)
    highs = np.asarray(input_constant(ctx, 2, "max"), np.float32).reshape(-1)
    bits, narrow = ctx.attrs.int("num_bits", 8), ctx.attrs.bool("narrow_range", False)
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


@extractor("tf", "Conv3DBackpropInputV2", produces=[*CONVOLUTION_BACKPROP_OPS, Transpose])
def _conv3d_backprop_input(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Conv3DBackpropInputV2 -> ConvolutionBackpropData, as Conv2DBackpropInput in ``nn``."""
    kernel = input_constant(ctx, 1, "filter").shape[:3]  # [D, H, W, C_result, C_data]
    sizes = [int(v) for v in input_constant(ctx, 0, "input_sizes").reshape(-1)]
    return backprop_for_result_size(ctx, sizes[1:4] if channels_last(ctx) else sizes[2:5], kernel)


@extractor("tf", "TensorArrayCloseV3")
def _tensor_array_close(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Closing a TensorArray frees its resource: no data output, nothing to compute."""
    return []


@extractor("tf", "NonMaxSuppression", produces=[*SINGLE_CLASS_NMS_OPS])
def _nms_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """NonMaxSuppression (v1) is V2 with ``iou_threshold`` an attribute."""
    iou = ctx.const(np.float32(ctx.attrs.float("iou_threshold", 0.5)), suffix="iou_threshold")
    return lower_nms(ctx, 2, ctx.input(0), ctx.input(1), ctx.input(2), iou)


@extractor("tf", "CTCGreedyDecoder", produces=[TopK, NonZero, GatherND, CumSum, Add, Concat, Convert, Gather, Less, LogicalAnd, Negative, NotEqual, Pad, Range, ReduceMax, ReduceSum, Select, ShapeOf, Slice, Squeeze, Transpose, Unsqueeze])
def _ctc_greedy_decoder(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Best path per sequence: the top class at each step t < sequence_length[b] (first index
    on ties), blanks dropped and, with ``merge_repeated``, a class equal to the previous step's
    top class dropped. Outputs: the sparse decoding (indices [n, 2], values [n], dense shape
    [batch, longest]) and log_probability [batch, 1] = -sum of the steps' top logits."""
    logits = ctx.input(0)  # [T, B, C]
    dtype = ctx.input_type(0).numpy if ctx.input_type(0) is not ElementType.dynamic else np.dtype(np.float32)
    top = ctx.add(
        TopK(axis=2, mode="max", sort="value", index_element_type=ElementType.i64, stable=True),
        [logits, i64(ctx, 1, "k")],
        suffix="TopK",
    )
    to_bt = i64(ctx, [1, 0], "to_batch_major")
    last = i64(ctx, [2], "class_axis")
    best = ctx.op(Transpose(), ctx.op(Squeeze(), top.out_port(0), last), to_bt, suffix="best_logits")  # [B, T]
    classes = ctx.op(Transpose(), ctx.op(Squeeze(), top.out_port(1), last), to_bt, suffix="classes")  # [B, T]
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), logits, suffix="dims")
    zero = i64(ctx, 0, "zero")
    steps = ctx.op(Gather(batch_dims=0), dims, zero, zero, suffix="max_time")
    times = ctx.op(Range(output_type=ElementType.i64), zero, steps, i64(ctx, 1, "one"), suffix="times")
    lengths = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="lengths")
    active = ctx.op(
        Less(),
        ctx.op(Unsqueeze(), times, i64(ctx, [0], "axis0")),
        ctx.op(Unsqueeze(), lengths, i64(ctx, [1], "axis1")),
        suffix="active",
    )  # [B, T]
    no_score = ctx.const(np.zeros((), dtype), suffix="no_score")
    picked = ctx.op(Select(), active, best, no_score, suffix="counted_logits")
    total = ctx.op(ReduceSum(keep_dims=True), picked, i64(ctx, [1], "time_axis"), suffix="total")
    log_probability = ctx.op(Negative(), total, suffix="log_probability")
    blank_index = ctx.attrs.int("blank_index", -1)
    if blank_index < 0:
        n_classes = ctx.op(Gather(batch_dims=0), dims, i64(ctx, 2, "classes_dim"), zero)
        blank = ctx.op(Add(), n_classes, i64(ctx, blank_index, "blank_offset"), suffix="blank")
    else:
        blank = i64(ctx, blank_index, "blank")
    keep = ctx.op(LogicalAnd(), active, ctx.op(NotEqual(), classes, blank), suffix="not_blank")
    if ctx.attrs.bool("merge_repeated", True):
        earlier = ctx.op(
            Slice(),
            classes,
            i64(ctx, [0], "start"),
            i64(ctx, [-1], "stop"),
            i64(ctx, [1], "step"),
            i64(ctx, [1], "time_axis"),
        )
        previous = ctx.op(
            Pad(pad_mode="constant"),
            earlier,
            i64(ctx, [0, 1], "pads_begin"),
            i64(ctx, [0, 0], "pads_end"),
            i64(ctx, -1, "none"),
            suffix="previous",
        )
        keep = ctx.op(LogicalAnd(), keep, ctx.op(NotEqual(), classes, previous), suffix="kept")
    where = ctx.op(NonZero(output_type=ElementType.i64), keep, suffix="where")  # [2, n]
    pairs = ctx.op(Transpose(), where, to_bt, suffix="pairs")  # [n, 2]: (batch, time)
    values = ctx.op(GatherND(batch_dims=0), classes, pairs, suffix="values")
    kept = ctx.op(Convert(destination_type=ElementType.i64), keep, suffix="kept_i64")
    positions = ctx.op(CumSum(exclusive=True), kept, i64(ctx, 1, "time_axis_scalar"), suffix="positions")
    batch = ctx.op(Gather(batch_dims=0), where, i64(ctx, [0], "batch_row"), zero, suffix="batch_row")
    position = ctx.op(
        Unsqueeze(), ctx.op(GatherND(batch_dims=0), positions, pairs), i64(ctx, [0], "axis0"), suffix="position"
    )
    indices = ctx.op(Transpose(), ctx.op(Concat(axis=0), batch, position), to_bt, suffix="indices")
    counts = ctx.op(ReduceSum(keep_dims=False), kept, i64(ctx, [1], "time_axis"), suffix="counts")
    longest = ctx.op(
        ReduceMax(keep_dims=True),
        ctx.op(Concat(axis=0), i64(ctx, [0], "none_kept"), counts),
        i64(ctx, [0], "axis0"),
        suffix="longest",
    )
    batch_dim = ctx.op(Slice(), dims, i64(ctx, [1], "b"), i64(ctx, [2], "b_end"), i64(ctx, [1], "s"))
    dense_shape = ctx.op(Concat(axis=0), batch_dim, longest, suffix="dense_shape")
    return [indices, values, dense_shape, log_probability]


# ------------------------------------------------------------------ hue and saturation
def _float_image(ctx: ExtractContext) -> tuple[OutPort, ElementType]:
    """Input 0 as f32 (TF's kernels compute in float) and its own element type."""
    kind = ctx.input_type(0)
    x = ctx.input(0)
    if kind not in (ElementType.f32, ElementType.dynamic):
        x = ctx.op(Convert(destination_type=ElementType.f32), x, suffix="as_float")
    return x, kind


def _from_float(ctx: ExtractContext, rgb: list[OutPort], kind: ElementType) -> list[OutPort]:
    out = ctx.op(Concat(axis=-1), *rgb, suffix="rgb")
    if kind not in (ElementType.f32, ElementType.dynamic):
        out = ctx.op(Convert(destination_type=kind), out, suffix="result")
    return [out]


class _Elementwise:
    """Short spellings of f32 element-wise ops for the colour-space arithmetic."""

    def __init__(self, ctx: ExtractContext) -> None:
        self.ctx = ctx

    def c(self, value: float) -> OutPort:
        return self.ctx.const(np.float32(value), suffix="const")

    def sel(self, cond: OutPort, a: OutPort, b: OutPort) -> OutPort:
        return self.ctx.op(Select(), cond, a, b)

    def eq(self, a: OutPort, value: float) -> OutPort:
        return self.ctx.op(Equal(), a, self.c(value))

    def among(self, a: OutPort, *values: float) -> OutPort:
        result = self.eq(a, values[0])
        for value in values[1:]:
            result = self.ctx.op(LogicalOr(), result, self.eq(a, value))
        return result

    def __getattr__(self, name: str) -> Any:
        ops = {"add": Add, "sub": Subtract, "mul": Multiply, "div": Divide, "lt": Less, "gt": Greater,
               "ge": GreaterEqual, "max": Maximum, "min": Minimum}  # fmt: skip
        if name not in ops:
            raise AttributeError(name)
        kind = ops[name]
        return lambda a, b: self.ctx.op(kind(), a, b)


def _channels(ctx: ExtractContext, x: OutPort) -> list[OutPort]:
    split = ctx.add(Split(num_splits=3), [x, i64(ctx, -1, "channel_axis")], suffix="channels")
    return [split.out_port(i) for i in range(3)]


@extractor("tf", "AdjustHue", produces=[Split, Select, Minimum, Maximum, Divide, Floor, Concat, Add, Equal, Greater, GreaterEqual, Less, LogicalOr, Multiply, Subtract, Convert])
def _adjust_hue(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TF's CPU kernel: RGB to (h in [0, 6), v_min, v_max) with the hue's sextant picked by
    comparisons, h += 6 * delta wrapped into [0, 6), then back (the middle channel
    v_min + ratio * (v_max - v_min), ratio = frac(h), or 1 - frac(h) in odd sextants)."""
    x, kind = _float_image(ctx)
    e = _Elementwise(ctx)
    r, g, b = _channels(ctx, x)
    r_lt_g = e.lt(r, g)
    # sextant: r < g: b < r -> 1, b > g -> 3, else 2;  otherwise: b < g -> 0, b > r -> 4, else 5
    sextant = e.sel(
        r_lt_g,
        e.sel(e.lt(b, r), e.c(1), e.sel(e.gt(b, g), e.c(3), e.c(2))),
        e.sel(e.lt(b, g), e.c(0), e.sel(e.gt(b, r), e.c(4), e.c(5))),
    )
    v_max = e.max(e.max(r, g), b)
    v_min = e.min(e.min(r, g), b)
    v_mid = e.sel(e.among(sextant, 0, 3), g, e.sel(e.among(sextant, 1, 4), r, b))
    ratio = e.div(e.sub(v_mid, v_min), e.sub(v_max, v_min))
    odd = e.among(sextant, 1, 3, 5)
    hue = e.add(sextant, e.sel(odd, e.sub(e.c(1), ratio), ratio))
    hue = e.sel(ctx.op(Equal(), v_max, v_min), e.c(0), hue)
    delta = ctx.input(1)
    if ctx.input_type(1) not in (ElementType.f32, ElementType.dynamic):
        delta = ctx.op(Convert(destination_type=ElementType.f32), delta, suffix="delta")
    hue = e.add(hue, e.mul(delta, e.c(6)))
    value = ctx.input_value(1)
    passes = 2 if value is None else max(1, int(np.ceil(np.max(np.abs(value)))) + 1)
    for _ in range(passes):  # TF: while (h < 0) h += 6; while (h >= 6) h -= 6
        hue = e.sel(e.lt(hue, e.c(0)), e.add(hue, e.c(6)), hue)
    for _ in range(passes):
        hue = e.sel(e.ge(hue, e.c(6)), e.sub(hue, e.c(6)), hue)
    sextant = ctx.op(Floor(), hue, suffix="sextant")
    frac = e.sub(hue, sextant)
    frac = e.sel(e.among(sextant, 1, 3, 5), e.sub(e.c(1), frac), frac)
    mid = e.add(v_min, e.mul(frac, e.sub(v_max, v_min)))

    def pick(top: tuple[float, ...], middle: tuple[float, ...]) -> OutPort:
        return e.sel(e.among(sextant, *top), v_max, e.sel(e.among(sextant, *middle), mid, v_min))

    return _from_float(ctx, [pick((0, 5), (1, 4)), pick((1, 2), (0, 3)), pick((3, 4), (2, 5))], kind)


@extractor("tf", "AdjustSaturation", produces=[Split, Select, Minimum, Maximum, Divide, FloorMod, Concat, Abs, Add, Equal, Floor, Greater, GreaterEqual, Less, LogicalOr, Multiply, Subtract, Convert])
def _adjust_saturation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TF's CPU kernel: RGB to HSV (h in [0, 1)), s = clamp(s * scale, 0, 1), HSV to RGB with
    the sextant int(6h) (6, from a hue rounded up to 1, gives black plus v - s v)."""
    x, kind = _float_image(ctx)
    e = _Elementwise(ctx)
    r, g, b = _channels(ctx, x)
    v = e.max(e.max(r, g), b)
    spread = e.sub(v, e.min(e.min(r, g), b))
    sat = e.sel(e.gt(v, e.c(0)), e.div(spread, v), e.c(0))
    norm = e.div(e.c(1), e.mul(e.c(6), spread))
    hue = e.sel(
        ctx.op(Equal(), r, v),
        e.mul(norm, e.sub(g, b)),
        e.sel(
            ctx.op(Equal(), g, v),
            e.add(e.mul(norm, e.sub(b, r)), e.c(2.0 / 6.0)),
            e.add(e.mul(norm, e.sub(r, g)), e.c(4.0 / 6.0)),
        ),
    )
    hue = e.sel(ctx.op(GreaterEqual(), e.c(0), spread), e.c(0), hue)
    hue = e.sel(e.lt(hue, e.c(0)), e.add(hue, e.c(1)), hue)
    scale = ctx.input(1)
    if ctx.input_type(1) not in (ElementType.f32, ElementType.dynamic):
        scale = ctx.op(Convert(destination_type=ElementType.f32), scale, suffix="scale")
    sat = e.min(e.c(1), e.max(e.c(0), e.mul(sat, scale)))
    chroma = e.mul(sat, v)
    base = e.sub(v, chroma)
    sixths = e.mul(hue, e.c(6))
    sextant = ctx.op(Floor(), sixths, suffix="sextant")
    wrapped = ctx.op(FloorMod(), sixths, e.c(2), suffix="wrapped")
    second = e.mul(chroma, e.sub(e.c(1), ctx.op(Abs(), e.sub(wrapped, e.c(1)))))
    zero = e.c(0)

    def pick(top: tuple[float, ...], middle: tuple[float, ...]) -> OutPort:
        part = e.sel(e.among(sextant, *top), chroma, e.sel(e.among(sextant, *middle), second, zero))
        result: OutPort = e.add(part, base)
        return result

    return _from_float(ctx, [pick((0, 5), (1, 4)), pick((1, 2), (0, 3)), pick((3, 4), (2, 5))], kind)


# ------------------------------------------------------------------------------ random
def _shape_input(ctx: ExtractContext) -> OutPort:
    return ctx.op(Convert(destination_type=ElementType.i64), ctx.input(0), suffix="shape")


def _seeds(ctx: ExtractContext) -> dict[str, int]:
    return {"global_seed": ctx.attrs.int("seed", 0), "op_seed": ctx.attrs.int("seed2", 0)}


@extractor("tf", "RandomUniform", produces=[Convert, RandomUniform])
def _random_uniform(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """RandomUniform -> RandomUniform-8 over [0, 1) in ``dtype``: TF's distribution, not its values."""
    out = element_type(ctx.attrs.int("dtype", 1), ctx.where())
    low, high = ctx.const(np.zeros((), out.numpy), suffix="min"), ctx.const(np.ones((), out.numpy), suffix="max")
    op = RandomUniform(output_type=out, alignment="tensorflow", **_seeds(ctx))
    return [ctx.op(op, _shape_input(ctx), low, high, suffix="RandomUniform")]


@extractor("tf", "RandomUniformInt", produces=[Convert, RandomUniform])
def _random_uniform_int(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """RandomUniformInt -> RandomUniform-8 over integers in [minval, maxval)."""
    out = element_type(ctx.attrs.int("Tout", 3), ctx.where())
    op = RandomUniform(output_type=out, alignment="tensorflow", **_seeds(ctx))
    return [ctx.op(op, _shape_input(ctx), ctx.input(1), ctx.input(2), suffix="RandomUniform")]


@extractor("tf", "RandomStandardNormal", produces=[Convert, Concat, RandomUniform, Gather, Log, Multiply, Sqrt, Cos])
def _random_standard_normal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Box-Muller: sqrt(-2 ln u1) cos(2 pi u2) with u1 in (0, 1), u2 in [0, 1), both drawn
    by one RandomUniform-8 of shape [2, *shape] (two draws with the same seeds would match)."""
    out = element_type(ctx.attrs.int("dtype", 1), ctx.where())
    dtype = out.numpy
    both = ctx.op(Concat(axis=0), i64(ctx, [2], "two"), _shape_input(ctx), suffix="both_shape")
    tiny = ctx.const(np.asarray(np.finfo(dtype).tiny, dtype), suffix="min")
    op = RandomUniform(output_type=out, alignment="tensorflow", **_seeds(ctx))
    draws = ctx.op(op, both, tiny, ctx.const(np.ones((), dtype), suffix="max"), suffix="RandomUniform")
    zero = i64(ctx, 0, "zero")
    u1 = ctx.op(Gather(batch_dims=0), draws, zero, zero, suffix="u1")
    u2 = ctx.op(Gather(batch_dims=0), draws, i64(ctx, 1, "one"), zero, suffix="u2")
    radius = ctx.op(
        Sqrt(),
        ctx.op(Multiply(), ctx.op(Log(), u1), ctx.const(np.asarray(-2.0, dtype), suffix="minus_two")),
        suffix="radius",
    )
    angle = ctx.op(Multiply(), u2, ctx.const(np.asarray(2.0 * np.pi, dtype), suffix="two_pi"), suffix="angle")
    return [ctx.op(Multiply(), radius, ctx.op(Cos(), angle), suffix="normal")]


# ------------------------------------------------------------------- max pool with argmax
@extractor("tf", "MaxPoolWithArgmax", produces=[MaxPool, Transpose, Multiply, Add, Gather, Range, ReduceProd, Reshape, ShapeOf, Concat, Convert, Divide, FloorMod, Maximum, Pad, Subtract])
def _max_pool_with_argmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MaxPool-8 on the NCHW form (indices y * W + x within each image and channel, its
    ``axis`` 2), both outputs back to NHWC; TF's flat NHWC index is then
    (s + [b * H * W]) * C + c, the batch term only with ``include_batch_in_index``.

    The CPU plugin pools ``same_upper`` wrongly when H or W is unknown: there TF's SAME pads
    (total max((ceil(n / s) - 1) * s + k - n, 0), smaller half first) are added with a Pad of
    -inf and the pooling is VALID; its indices y' * W' + x' are mapped back to the unpadded
    image, (y' - top) * W + x' - left.
    """
    kind = ctx.attrs.str("padding")
    if kind not in ("SAME", "VALID"):
        raise ConversionError(f"{ctx.where()}: unknown padding {quoted(kind)}")
    ksize, strides = ctx.attrs.ints("ksize"), ctx.attrs.ints("strides")
    if len(ksize) != 4 or len(strides) != 4 or ksize[0] != 1 or ksize[3] != 1 or strides[0] != 1 or strides[3] != 1:
        raise ConversionError(f"{ctx.where()}: MaxPoolWithArgmax pools over H and W only")
    x = ctx.input(0)
    shape = ctx.input_shape(0)
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), x, suffix="dims")
    zero, one = i64(ctx, 0, "zero"), i64(ctx, 1, "one")
    height_width = ctx.op(Gather(batch_dims=0), dims, i64(ctx, [1, 2], "hw"), zero, suffix="height_width")
    nchw = ctx.op(Transpose(), x, i64(ctx, [0, 3, 1, 2], "to_nchw"), suffix="nchw")
    runtime_pads = kind == "SAME" and (shape is None or shape[1] is None or shape[2] is None)
    if runtime_pads:
        window, step = i64(ctx, ksize[1:3], "window"), i64(ctx, strides[1:3], "step")
        outs = ctx.op(Divide(), ctx.op(Add(), height_width, i64(ctx, [s - 1 for s in strides[1:3]], "round_up")), step)
        needed = ctx.op(
            Subtract(),
            ctx.op(Add(), ctx.op(Multiply(), ctx.op(Subtract(), outs, one), step), window),
            height_width,
        )
        total = ctx.op(Maximum(), needed, zero, suffix="total_pads")
        begin = ctx.op(Divide(), total, i64(ctx, 2, "two"), suffix="pads_begin")
        end = ctx.op(Subtract(), total, begin, suffix="pads_end")
        no_pads = i64(ctx, [0, 0], "no_pads")
        kind_in = ctx.input_type(0)
        dtype: np.dtype[Any] = kind_in.numpy if kind_in is not ElementType.dynamic else np.dtype(np.float32)
        floor = -np.inf if np.issubdtype(dtype, np.floating) else int(np.iinfo(dtype.type).min)
        lowest = ctx.const(np.asarray(floor, dtype), suffix="lowest")
        nchw = ctx.op(
            Pad(pad_mode="constant"),
            nchw,
            ctx.op(Concat(axis=0), no_pads, begin),
            ctx.op(Concat(axis=0), no_pads, end),
            lowest,
            suffix="padded",
        )
    auto_pad = "valid" if kind == "VALID" or runtime_pads else "same_upper"
    pool = ctx.add(
        MaxPool(
            strides=(strides[1], strides[2]),
            kernel=(ksize[1], ksize[2]),
            pads_begin=(0, 0),
            pads_end=(0, 0),
            dilations=(1, 1),
            auto_pad=auto_pad,
            rounding_type="floor",
            index_element_type=ElementType.i64,
            axis=2,
        ),
        [nchw],
        suffix="MaxPool",
    )
    to_nhwc = i64(ctx, [0, 2, 3, 1], "to_nhwc")
    values = ctx.op(Transpose(), pool.out_port(0), to_nhwc, suffix="values")
    index = ctx.op(Transpose(), pool.out_port(1), to_nhwc, suffix="spatial_index")  # [N, H', W', C]
    width = ctx.op(Gather(batch_dims=0), dims, i64(ctx, 2, "w_dim"), zero, suffix="width")
    if runtime_pads:
        top = ctx.op(Gather(batch_dims=0), begin, zero, zero, suffix="top")
        left = ctx.op(Gather(batch_dims=0), begin, one, zero, suffix="left")
        padded_width = ctx.op(Add(), ctx.op(Add(), width, left), ctx.op(Gather(batch_dims=0), end, one, zero))
        row = ctx.op(Subtract(), ctx.op(Divide(), index, padded_width), top, suffix="row")
        column = ctx.op(Subtract(), ctx.op(FloorMod(), index, padded_width), left, suffix="column")
        index = ctx.op(Add(), ctx.op(Multiply(), row, width), column, suffix="unpadded_index")
    channels = ctx.op(Gather(batch_dims=0), dims, i64(ctx, 3, "c_dim"), zero, suffix="channels")
    if ctx.attrs.bool("include_batch_in_index", False):
        batch = ctx.op(Gather(batch_dims=0), dims, zero, zero, suffix="batch")
        image_size = ctx.op(ReduceProd(keep_dims=False), height_width, zero, suffix="image_size")
        images = ctx.op(Range(output_type=ElementType.i64), zero, batch, one, suffix="images")
        offsets = ctx.op(
            Reshape(special_zero=False),
            ctx.op(Multiply(), images, image_size),
            i64(ctx, [-1, 1, 1, 1], "batch_shape"),
            suffix="image_offsets",
        )
        index = ctx.op(Add(), index, offsets, suffix="with_batch")
    scaled = ctx.op(Multiply(), index, channels, suffix="scaled")
    channel = ctx.op(Range(output_type=ElementType.i64), zero, channels, one, suffix="channel")
    index = ctx.op(Add(), scaled, channel, suffix="argmax_i64")
    out = element_type(ctx.attrs.int("Targmax", 9), ctx.where())
    if out != ElementType.i64:
        index = ctx.op(Convert(destination_type=out), index, suffix="argmax")
    return [values, index]


# ------------------------------------------------------------------ losses, matrices
def _softmax_cross_entropy(node: Node, ctx: ExtractContext, sparse: bool) -> list[OutPort]:
    """(Sparse)SoftmaxCrossEntropyWithLogits(features [B, C], labels): the loss
    -sum(labels * log_softmax(features)) per row and its gradient softmax(features) - labels
    (sparse labels [B] are class indices, taken as one-hot rows)."""
    features = ctx.input(0)
    labels = ctx.input(1)
    if sparse:
        depth = ctx.op(Gather(batch_dims=0), ctx.op(ShapeOf(), features, suffix="dims"), i64(ctx, 1, "classes"),
                       i64(ctx, 0, "axis0"), suffix="depth")  # fmt: skip
        labels = ctx.op(OneHot(axis=-1), labels, depth, const_like(ctx, 1.0, features, "on"),
                        const_like(ctx, 0.0, features, "off"), suffix="one_hot")  # fmt: skip
    log_probs = ctx.op(LogSoftmax(axis=-1), features, suffix="log_softmax")
    weighted = ctx.op(Multiply(), labels, log_probs, suffix="weighted")
    total = ctx.op(ReduceSum(keep_dims=False), weighted, i64(ctx, [-1], "class_axis"), suffix="sum")
    loss = ctx.op(Negative(), total, suffix="loss")
    gradient = ctx.op(Subtract(), ctx.op(SoftMax(axis=-1), features, suffix="softmax"), labels, suffix="backprop")
    return [loss, gradient]


@extractor("tf", "MatrixInverse", produces=[Inverse])
def _matrix_inverse(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Inverse(adjoint=ctx.attrs.bool("adjoint", False)))


@extractor("tf", "SoftmaxCrossEntropyWithLogits", produces=[LogSoftmax, SoftMax, Multiply, ReduceSum, Negative, Subtract])
def _softmax_cross_entropy_with_logits(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _softmax_cross_entropy(node, ctx, False)


@extractor("tf", "SparseSoftmaxCrossEntropyWithLogits", produces=[OneHot, LogSoftmax, SoftMax, Multiply, ReduceSum, Negative, Subtract, ShapeOf, Gather])
def _sparse_softmax_cross_entropy_with_logits(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _softmax_cross_entropy(node, ctx, True)
