"""Signal ops: DFT (as DFT/IDFT/RDFT/IRDFT), STFT and Col2Im on the OpenVINO signal ops.

ONNX keeps complex values as a trailing dimension of 2 (real input: a trailing 1); OpenVINO's
DFT/IDFT/IRDFT read the trailing 2 and RDFT reads plain real data. ONNX axes count that
trailing dimension; they are made non-negative here so they mean the same data axis to both.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.frontend import const_like, extractor, f32, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    DFT,
    IDFT,
    IRDFT,
    RDFT,
    STFT,
    Add,
    Broadcast,
    Col2Im,
    Concat,
    Convert,
    Divide,
    Equal,
    Exp,
    Floor,
    FloorMod,
    Gather,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    Log,
    LogicalAnd,
    Maximum,
    Multiply,
    Range,
    Reshape,
    Select,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
    Unsqueeze,
)
from irconv_opset.build import shape_of

from irconv_onnx.extractors._common import et_of_onnx
from irconv_onnx.extractors._optional import HANDLED, with_defaults


def _scalar_vector(ctx: ExtractContext, idx: int, name: str) -> OutPort:
    """A scalar (or [1]) length input as the 1-element i64 vector OpenVINO wants."""
    port = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(idx), suffix=f"{name}_i64")
    return ctx.op(Reshape(special_zero=False), port, i64(ctx, [1]), suffix=name)


def _dft_axis(ctx: ExtractContext, rank: int, axis_input: bool) -> int | None:
    """The non-negative axis (an attribute before opset 20, ``axis_input`` false), or None
    when it is a run-time input."""
    a = ctx.attrs
    if not axis_input:
        axis = a.int("axis", 1)
    elif ctx.has_input(2):
        value = ctx.input_value(2)
        if value is None:
            return None
        axis = int(value.reshape(()))
    else:
        axis = -2
    if not -rank <= axis <= rank - 2 or axis == -1:
        raise a.bad("axis", axis, f"expected an axis of the signal dimensions of a rank-{rank} input")
    return axis % rank


def _dft(node: Node, ctx: ExtractContext, axis_input: bool) -> list[OutPort]:
    """DFT-17/20: full or one-sided (RFFT/IRFFT), forward or inverse, optional dft_length."""
    a = ctx.attrs
    inverse, onesided = bool(a.int("inverse", 0)), bool(a.int("onesided", 0))
    x = ctx.input(0)
    shape = ctx.input_shape(0)
    if shape is None or shape[-1] not in (1, 2):
        raise a.bad("input", "unknown rank or last dimension", "DFT needs a known rank and a last dimension of "
                                                               "1 (real) or 2 (complex)")
    rank, real = len(shape), shape[-1] == 1
    axis = _dft_axis(ctx, rank, axis_input)
    axes = i64(ctx, [axis], "axes") if axis is not None else _runtime_axes(ctx, rank)
    size = [_scalar_vector(ctx, 1, "dft_length")] if ctx.has_input(1) else []
    last = i64(ctx, [rank - 1], "complex_axis")
    if onesided and inverse and axis is None:
        raise a.bad("axis", "a run-time input", "a one-sided inverse DFT needs a constant axis (the OpenVINO CPU "
                                                "plugin fails on IRDFT with run-time axes)")
    if onesided and not inverse and axis is None:
        if not real:
            raise a.bad("onesided", 1, "a one-sided forward DFT needs real input")
        return [_rfft_at_runtime_axis(ctx, x, shape, axes, size)]
    if onesided and not inverse:
        if not real:
            raise a.bad("onesided", 1, "a one-sided forward DFT needs real input")
        signal = ctx.op(Squeeze(), x, last, suffix="real")
        return [ctx.op(RDFT(), signal, axes, *size)]
    if onesided:
        if real:
            raise a.bad("onesided", 1, "a one-sided inverse DFT needs complex input")
        return [ctx.op(Unsqueeze(), ctx.op(IRDFT(), x, axes, *size, suffix="irdft"), last)]
    if not real:
        return [ctx.op((IDFT if inverse else DFT)(), x, axes, *size)]
    spectrum = ctx.op((IDFT if inverse else DFT)(), _complex(ctx, x), axes, *size, suffix="dft")
    return [_real_symmetry(ctx, spectrum, shape, axis)]


def _complex(ctx: ExtractContext, x: OutPort) -> OutPort:
    """A real [..., 1] signal as complex [..., 2] with a zero imaginary part."""
    zeros = ctx.op(Broadcast(), const_like(ctx, 0, x, "zero"), shape_of(ctx, x),
                   suffix="imaginary")
    return ctx.op(Concat(axis=-1), x, zeros, suffix="complex")


def _rfft_at_runtime_axis(ctx: ExtractContext, x: OutPort, shape: tuple[int | None, ...], axes: OutPort,
                          size: list[OutPort]) -> OutPort:
    """The first n // 2 + 1 bins of the full DFT (OpenVINO's RDFT needs constant axes)."""
    full = _real_symmetry(ctx, ctx.op(DFT(), _complex(ctx, x), axes, *size, suffix="dft"), shape, None)
    n = ctx.op(Gather(), shape_of(ctx, full, "spectrum_shape"), axes, i64(ctx, 0), suffix="n")
    half = ctx.op(Add(), ctx.op(Divide(m_pythondiv=True), n, i64(ctx, [2]), suffix="half_n"), i64(ctx, [1]),
                  suffix="bins")
    return ctx.op(Slice(), full, i64(ctx, [0]), half, i64(ctx, [1]), axes)


def _runtime_axes(ctx: ExtractContext, rank: int) -> OutPort:
    """[axis mod rank] from the run-time axis input."""
    return ctx.op(FloorMod(), _scalar_vector(ctx, 2, "axis"), i64(ctx, [rank]), suffix="axes")


def _real_symmetry(ctx: ExtractContext, spectrum: OutPort, shape: tuple[int | None, ...], axis: int | None) -> OutPort:
    """The transform of a real signal has exactly zero imaginary parts at k = 0 and k = N/2;
    f32 twiddle factors leave ~1e-7 relative noise there, so zero them (needs a static N)."""
    length = ctx.input_value(1) if ctx.has_input(1) else None
    if axis is not None:
        n = int(length.reshape(())) if length is not None else shape[axis]
        if n is None:
            return spectrum
        mask_shape = [1] * (len(shape) - 1) + [2]
        mask_shape[axis] = n
        return ctx.op(Multiply(), spectrum, const_like(ctx, _symmetry_mask(mask_shape, axis), spectrum, "symmetry"))
    # A run-time axis: one mask per possible axis over the whole (static) output, picked at run time.
    if ctx.has_input(1) or any(d is None for d in shape):
        return spectrum
    out_shape = [d for d in shape[:-1] if d is not None] + [2]  # all static here
    masks = np.stack([_symmetry_mask(out_shape, a) for a in range(len(shape) - 1)])
    picked = ctx.op(Gather(), const_like(ctx, masks, spectrum, "symmetry_masks"),
                    ctx.op(Squeeze(), _runtime_axes(ctx, len(shape)), i64(ctx, [0]), suffix="axis_scalar"),
                    i64(ctx, 0), suffix="symmetry")
    return ctx.op(Multiply(), spectrum, picked)


def _symmetry_mask(mask_shape: list[int], axis: int) -> np.ndarray:
    """Ones, with 0 at the imaginary parts of k = 0 and (even N) k = N/2 along ``axis``."""
    n = mask_shape[axis]
    mask = np.ones(mask_shape)
    imaginary: list[Any] = [slice(None)] * len(mask_shape)
    imaginary[-1] = 1
    for k in {0, n // 2} if n % 2 == 0 else {0}:
        imaginary[axis] = k
        mask[tuple(imaginary)] = 0
    return mask


@extractor("onnx", "STFT", versions=(17, None), produces=[STFT, Broadcast, Reshape, ShapeOf, Squeeze])
@with_defaults({2: HANDLED, 3: HANDLED})
def _stft(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """STFT-17 on real signals [batch, length, 1]: OpenVINO STFT-15 (one-sided only)."""
    a = ctx.attrs
    if not a.int("onesided", 1):
        raise a.bad("onesided", 0, "OpenVINO STFT returns the one-sided spectrum only")
    shape = ctx.input_shape(0)
    if shape is None or shape[-1] != 1:
        raise a.bad("signal", "complex or of unknown shape", "OpenVINO STFT transforms real signals [batch, length, 1]")
    x = ctx.input(0)
    signal = ctx.op(Squeeze(), x, i64(ctx, [len(shape) - 1]), suffix="signal")
    step = ctx.op(Reshape(special_zero=False), ctx.input(1), i64(ctx, [], "scalar"), suffix="frame_step")
    if ctx.has_input(3):
        size = ctx.op(Reshape(special_zero=False), ctx.input(3), i64(ctx, [], "scalar"), suffix="frame_length")
    elif ctx.has_input(2):
        size = ctx.op(Squeeze(), shape_of(ctx, ctx.input(2), "window_shape"), i64(ctx, [0]),
                      suffix="frame_length")
    else:
        raise a.bad("frame_length", None, "STFT needs a window or a frame_length")
    if ctx.has_input(2):
        window = ctx.input(2)
    else:  # a rectangular window of frame_length ones
        window = ctx.op(Broadcast(), const_like(ctx, 1, x, "one"),
                        ctx.op(Reshape(special_zero=False), size, i64(ctx, [1]), suffix="window_shape"),
                        suffix="window")
    return [ctx.op(STFT(transpose_frames=False), signal, window, size, step)]


@extractor("onnx", "Col2Im", versions=(18, None), produces=[Col2Im, Convert])
def _col2im(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Col2Im-18 with two spatial dimensions (OpenVINO Col2Im-15 is 2-D)."""
    a = ctx.attrs
    block = ctx.input_value(2)
    block_shape = ctx.input_shape(2)
    spatial = len(block) if block is not None else block_shape[0] if block_shape else None
    if spatial != 2:
        raise a.bad("block_shape", spatial, "OpenVINO Col2Im handles two spatial dimensions only")
    pads = a.ints("pads", [0, 0, 0, 0])
    op = Col2Im(strides=a.ints("strides", [1, 1]), dilations=a.ints("dilations", [1, 1]),
                pads_begin=pads[:2], pads_end=pads[2:])
    return [ctx.op(op, ctx.input(0), _i64_vector(ctx, 1, "image_shape"), _i64_vector(ctx, 2, "block_shape"))]


@extractor("onnx", "MelWeightMatrix", versions=(17, None), produces=[Range, Select, Convert, Add, Divide, Equal, Exp, Floor, Greater, GreaterEqual, Less, LessEqual, Log, LogicalAnd, Maximum, Multiply, Reshape, Slice, Subtract, Unsqueeze])
def _mel_weight_matrix(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MelWeightMatrix-17 from run-time scalars: triangular filters between mel-spaced bins
    (rising (j - lower) / (center - lower) up to the centre, falling (higher - j) / (higher - center)
    after it), [dft_length // 2 + 1, num_mel_bins]."""
    a = ctx.attrs
    f32_t, i64_t = ElementType.f32, ElementType.i64

    def scalar(idx: int, et: ElementType, name: str) -> OutPort:
        port = ctx.op(Convert(destination_type=et), ctx.input(idx), suffix=f"{name}_cast")
        return ctx.op(Reshape(special_zero=False), port, i64(ctx, []), suffix=name)

    def f(value: float) -> OutPort:
        return f32(ctx, value, "c")

    def mel(hertz: OutPort, name: str) -> OutPort:  # 2595 * log10(1 + hz / 700)
        ratio = ctx.op(Add(), f(1), ctx.op(Divide(), hertz, f(700), suffix=f"{name}_ratio"), suffix=f"{name}_1p")
        return ctx.op(Multiply(), ctx.op(Log(), ratio, suffix=f"{name}_ln"), f(2595 / np.log(10)), suffix=name)

    bins, length, rate = scalar(0, i64_t, "num_mel_bins"), scalar(1, i64_t, "dft_length"), scalar(2, f32_t, "rate")
    low, high = mel(scalar(3, f32_t, "lower_hz"), "low_mel"), mel(scalar(4, f32_t, "upper_hz"), "high_mel")
    points = ctx.op(Add(), bins, i64(ctx, 2), suffix="points")
    # the mel range is split by the number of points (num_mel_bins + 2), as ONNX's reference does
    step = ctx.op(Divide(), ctx.op(Subtract(), high, low, suffix="mel_span"),
                  ctx.op(Convert(destination_type=f32_t), points, suffix="point_count"),
                  suffix="mel_step")
    steps = ctx.op(Range(output_type=f32_t), i64(ctx, 0), points, i64(ctx, 1), suffix="steps")
    mels = ctx.op(Add(), ctx.op(Multiply(), steps, step, suffix="mel_offsets"), low, suffix="mels")
    hertz = ctx.op(Multiply(), f(700), ctx.op(Subtract(), ctx.op(Exp(), ctx.op(
        Multiply(), mels, f(np.log(10) / 2595), suffix="mel_ln"), suffix="mel_exp"), f(1), suffix="hz_ratio"),
                   suffix="hertz")
    scaled = ctx.op(Multiply(), ctx.op(Convert(destination_type=f32_t), ctx.op(Add(), length, i64(ctx, 1)),
                                         suffix="length_1p"), hertz, suffix="scaled")
    edges = ctx.op(Floor(), ctx.op(Divide(), scaled, rate, suffix="bin_float"), suffix="edges")
    count = ctx.op(Reshape(special_zero=False), bins, i64(ctx, [1]), suffix="count")

    def take(start: int) -> OutPort:
        stop = ctx.op(Add(), count, i64(ctx, [start]), suffix=f"stop{start}")
        edge = ctx.op(Slice(), edges, i64(ctx, [start]), stop, i64(ctx, [1]), i64(ctx, [0]), suffix=f"edge{start}")
        return ctx.op(Unsqueeze(), edge, i64(ctx, [0]), suffix=f"row{start}")

    lower, center, higher = take(0), take(1), take(2)
    spectrum = ctx.op(Add(), ctx.op(Divide(m_pythondiv=True), length, i64(ctx, 2)), i64(ctx, 1), suffix="nbins")
    j = ctx.op(Unsqueeze(), ctx.op(Range(output_type=f32_t), i64(ctx, 0), spectrum, i64(ctx, 1), suffix="j_range"),
               i64(ctx, [1]), suffix="j")
    one = f(1)
    rise_span = ctx.op(Maximum(), ctx.op(Subtract(), center, lower, suffix="rise_width"), one, suffix="rise_span")
    fall_span = ctx.op(Maximum(), ctx.op(Subtract(), higher, center, suffix="fall_width"), one, suffix="fall_span")
    rising = ctx.op(Divide(), ctx.op(Subtract(), j, lower, suffix="from_lower"), rise_span, suffix="rising")
    rising = ctx.op(Select(), ctx.op(Equal(), center, lower, suffix="no_rise"), one, rising, suffix="rising_safe")
    falling = ctx.op(Divide(), ctx.op(Subtract(), higher, j, suffix="to_higher"), fall_span, suffix="falling")
    in_rise = ctx.op(LogicalAnd(), ctx.op(GreaterEqual(), j, lower, suffix="after_lower"),
                     ctx.op(LessEqual(), j, center, suffix="before_center"), suffix="in_rise")
    in_fall = ctx.op(LogicalAnd(), ctx.op(Greater(), j, center, suffix="after_center"),
                     ctx.op(Less(), j, higher, suffix="before_higher"), suffix="in_fall")
    weights = ctx.op(Select(), in_rise, rising, ctx.op(Select(), in_fall, falling, f(0), suffix="fall_part"),
                     suffix="weights")
    target = et_of_onnx(a.int("output_datatype", 1), "MelWeightMatrix output_datatype")
    return [ctx.op(Convert(destination_type=target), weights)]


def _i64_vector(ctx: ExtractContext, idx: int, name: str) -> OutPort:
    return ctx.op(Convert(destination_type=ElementType.i64), ctx.input(idx), suffix=name)


@extractor("onnx", "DFT", versions=(17, 19), produces=[DFT, IDFT, RDFT, IRDFT, Add, Broadcast, Concat, Convert, Divide, FloorMod, Gather, Multiply, Reshape, ShapeOf, Slice, Squeeze, Unsqueeze])
@with_defaults({1: HANDLED})
def dft_v17(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _dft(node, ctx, axis_input=False)


@extractor("onnx", "DFT", versions=(20, None), produces=[DFT, IDFT, RDFT, IRDFT, Add, Broadcast, Concat, Convert, Divide, FloorMod, Gather, Multiply, Reshape, ShapeOf, Slice, Squeeze, Unsqueeze])
@with_defaults({1: HANDLED, 2: HANDLED})
def dft_v20(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _dft(node, ctx, axis_input=True)
