"""ResizeArea and ResizeBicubic as TensorFlow's own separable weights.

Both kernels compute each output row (column) as a weighted sum of input rows (columns), with
weights that depend only on the sizes: ``out = Wh @ x @ Ww^T`` per image and channel. The
weights are built here exactly as TensorFlow's kernels build them (area overlaps; the cubic
coefficient table with its 1/1024 steps, edge clamping, and for half-pixel centres zero
weight outside the image, renormalised), so the result matches where OpenVINO's Interpolate
would not (it has no area mode and a different cubic edge rule). Input and output sizes must
be static.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, input_constant
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Convert, Einsum

#: TF's bicubic coefficients are tabulated at 1/1024 steps of the fractional position.
CUBIC_TABLE_SIZE = 1024

Weights = Callable[[int, int, bool, bool], np.ndarray]


def _scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """TF's CalculateResizeScale."""
    if align_corners and out_size > 1:
        return np.float32((in_size - 1) / (out_size - 1))
    return np.float32(in_size / out_size)


def area_weights(in_size: int, out_size: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """[out, in]: each output cell averages the input cells it overlaps, by overlap length."""
    scale = _scale(in_size, out_size, align_corners)
    weights = np.zeros((out_size, in_size), np.float32)
    for y in range(out_size):
        start, end = np.float32(y * scale), np.float32((y + 1) * scale)
        for i in range(int(np.floor(start)), int(np.ceil(end))):
            if i < start:
                part = scale if i + 1 > end else np.float32(i + 1 - start)
            else:
                part = np.float32(end - i) if i + 1 > end else np.float32(1.0)
            weights[y, min(max(i, 0), in_size - 1)] += part / scale
    return weights


def _cubic_table(a: float) -> np.ndarray:
    """TF's coefficient table: [i, 0] for the near taps, [i, 1] for the far ones."""
    x = np.arange(CUBIC_TABLE_SIZE + 1, dtype=np.float64) / CUBIC_TABLE_SIZE
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    return np.stack([near, far], axis=1).astype(np.float32)


def bicubic_weights(in_size: int, out_size: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """[out, in]: four taps around each source position. Half-pixel centres use Keys' cubic
    (a = -0.5) with taps outside the image dropped and the rest renormalised; otherwise
    a = -0.75 with the taps clamped to the edge."""
    scale = _scale(in_size, out_size, align_corners)
    table = _cubic_table(-0.5 if half_pixel else -0.75)
    weights = np.zeros((out_size, in_size), np.float32)
    for y in range(out_size):
        source = np.float32((y + 0.5) * scale - 0.5) if half_pixel else np.float32(y * scale)
        base = int(np.floor(source))
        offset = int(np.rint(np.float32(source - base) * CUBIC_TABLE_SIZE))
        taps = [base - 1, base, base + 1, base + 2]
        coeffs = [
            table[offset, 1],
            table[offset, 0],
            table[CUBIC_TABLE_SIZE - offset, 0],
            table[CUBIC_TABLE_SIZE - offset, 1],
        ]
        bounded = [min(max(t, 0), in_size - 1) for t in taps]
        if half_pixel:
            coeffs = [c if b == t else np.float32(0) for c, b, t in zip(coeffs, bounded, taps, strict=True)]
            total = np.float32(sum(coeffs))
            if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
                coeffs = [np.float32(c / total) for c in coeffs]
        for b, c in zip(bounded, coeffs, strict=True):
            weights[y, b] += c
    return weights


def _separable(node: Node, ctx: ExtractContext, weights: Weights) -> list[OutPort]:
    align_corners = ctx.attrs.bool("align_corners", False)
    half_pixel = ctx.attrs.bool("half_pixel_centers", False)
    shape = ctx.input_shape(0)
    size = input_constant(ctx, 1, "the output size").reshape(-1)
    if shape is None or len(shape) != 4 or shape[1] is None or shape[2] is None:
        raise ConversionError(
            f"{ctx.where()}: the image's height and width must be static (its shape is {shape}); "
            "give the input shape with --input"
        )
    rows = weights(int(shape[1]), int(size[0]), align_corners, half_pixel)
    cols = weights(int(shape[2]), int(size[1]), align_corners, half_pixel)
    images = ctx.input(0)
    if ctx.input_type(0) is not ElementType.f32:  # TF returns float32 whatever the image type
        images = ctx.op(Convert(destination_type=ElementType.f32), images, suffix="as_float")
    tall = ctx.op(Einsum(equation="oh,nhwc->nowc"), ctx.const(rows, suffix="row_weights"), images, suffix="rows")
    return [ctx.op(Einsum(equation="pw,nowc->nopc"), ctx.const(cols, suffix="column_weights"), tall)]


@extractor("tf", "ResizeArea", produces=[Einsum, Convert])
def _resize_area(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _separable(node, ctx, area_weights)


@extractor("tf", "ResizeBicubic", produces=[Einsum, Convert])
def _resize_bicubic(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _separable(node, ctx, bicubic_weights)
