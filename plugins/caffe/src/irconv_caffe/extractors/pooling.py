"""Pooling (with Caffe's output-size rounding) and global pooling."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import AvgPool, Concat, MaxPool, Multiply, ReduceMax, ReduceMean, Reshape
from irconv_opset.lowering.pooling import (
    GlobalPool,
    PoolWindow,
    avg_pool,
    global_pool,
    max_pool,
)

from irconv_caffe.attributes import ParamBlock


def _pair(p: ParamBlock, plain: str, h: str, w: str, default: int) -> list[int]:
    if p.is_set(h) or p.is_set(w):
        return [getattr(p, h), getattr(p, w)]
    value = getattr(p, plain) if p.is_set(plain) else default
    return [value, value]


@extractor("caffe", "Pooling", produces=[MaxPool, AvgPool, Multiply, ReduceMax, ReduceMean])
def extract_pooling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MAX/AVE with Caffe's ceil rounding (ceil_torch), ``ceil_mode: false``, global pooling."""
    p = ctx.attrs.required("pooling_param")
    rank = require_rank(ctx)
    if p.pool == "STOCHASTIC":
        raise ConversionError(f"{ctx.where()}: STOCHASTIC pooling is not supported")
    if p.global_pooling:
        axes = i64(ctx, list(range(2, rank)), suffix="axes")
        kind = GlobalPool.MAX if p.pool == "MAX" else GlobalPool.AVG
        return [global_pool(ctx, ctx.input(0), kind, axes, suffix="global_pool")]
    if rank != 4:
        raise ConversionError(f"{ctx.where()}: Caffe pooling needs a 4-D input, got rank {rank}")
    kernel = _pair(p, "kernel_size", "kernel_h", "kernel_w", 0)
    if min(kernel) <= 0:
        raise ConversionError(f"{ctx.where()}: the pooling kernel size is missing")
    strides = _pair(p, "stride", "stride_h", "stride_w", 1)
    pads = _pair(p, "pad", "pad_h", "pad_w", 0)
    # Caffe rounds output sizes up, then drops a last window that would start inside
    # the end padding: exactly OpenVINO's ceil_torch. ceil_mode: false (OpenCV's
    # field) or ``round_mode: FLOOR`` (BVLC master's) rounds down.
    ceil = p.ceil_mode and p.round_mode != "FLOOR"
    window = PoolWindow.of(kernel, strides, pads, rounding="ceil_torch" if ceil else "floor")
    return [_pool(ctx, p.pool == "MAX", window)]


def _pool(ctx: ExtractContext, is_max: bool, window: PoolWindow) -> OutPort:
    if is_max:
        return max_pool(ctx, ctx.input(0), window).out_port(0)
    return _average(ctx, window)


@extractor("caffe", "SPP", produces=[MaxPool, AvgPool, Multiply, Reshape, Concat])
def extract_spp(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Spatial pyramid pooling: level i pools into 2^i x 2^i bins, flattened and concatenated."""
    p = ctx.attrs.required("spp_param")
    shape = ctx.input_shape(0)
    if shape is None or len(shape) != 4 or shape[2] is None or shape[3] is None:
        raise ConversionError(f"{ctx.where()}: SPP needs a 4-D input with static height and width, got {shape}")
    if p.pool == "STOCHASTIC":
        raise ConversionError(f"{ctx.where()}: STOCHASTIC pooling is not supported")
    size = [int(shape[2]), int(shape[3])]
    levels = []
    for level in range(max(1, p.pyramid_height)):
        bins = 2**level
        kernel = [-(-d // bins) for d in size]
        pads = [(k * bins - d + 1) // 2 for k, d in zip(kernel, size, strict=True)]
        pooled = _pool(ctx, p.pool == "MAX", PoolWindow.of(kernel, kernel, pads, rounding="ceil_torch"))
        flat = ctx.op(
            Reshape(special_zero=True), pooled, i64(ctx, [0, -1], suffix="flat_shape"), suffix="flatten"
        )
        levels.append(flat)
    if len(levels) == 1:
        return levels
    return [ctx.op(Concat(axis=1), *levels, suffix="concat")]


def _average(ctx: ExtractContext, window: PoolWindow) -> OutPort:
    """Caffe divides each window's sum by its cells inside the *padded* input.

    Without padding that is the count of real cells (``exclude-pad``). With padding,
    windows that spill past the padded end (ceil rounding) count fewer cells than the
    kernel: then the real-cell average is rescaled by a constant map real/Caffe count.
    """
    kernel, strides, pads = window.kernel, window.window.strides, window.window.pads_begin
    if not any(pads):
        return avg_pool(ctx, ctx.input(0), window, exclude_pad=True)
    shape = ctx.input_shape(0)
    assert shape is not None
    sizes = [d for d in shape[2:] if d is not None]
    if len(sizes) != 2:
        # Exact wherever no window spills past the padded end.
        return avg_pool(ctx, ctx.input(0), window, exclude_pad=False)
    real, caffe_count = [], []
    for axis, size in enumerate(sizes):
        k, s, pad = kernel[axis], strides[axis], pads[axis]
        out = window_count(size, k, s, pad, window.rounding)
        starts = np.arange(out) * s - pad
        ends = np.minimum(starts + k, size + pad)
        caffe_count.append(ends - starts)
        real.append(np.minimum(ends, size) - np.maximum(starts, 0))
    caffe_area = np.outer(caffe_count[0], caffe_count[1])
    if np.all(caffe_area == kernel[0] * kernel[1]):
        return avg_pool(ctx, ctx.input(0), window, exclude_pad=False)
    ratio = (np.outer(real[0], real[1]) / caffe_area).astype(np.float32)
    pooled = avg_pool(ctx, ctx.input(0), window, exclude_pad=True)
    return ctx.op(Multiply(), pooled, ctx.const(ratio[None, None], suffix="area_ratio"), suffix="rescale")


def window_count(size: int, kernel: int, stride: int, pad: int, rounding: str) -> int:
    """Caffe's pooled size: ceil (or floor), minus a last window starting in the end padding."""
    span = size + 2 * pad - kernel
    out = (-(-span // stride) if rounding != "floor" else span // stride) + 1
    if rounding != "floor" and pad and (out - 1) * stride >= size + pad:
        out -= 1
    return out

