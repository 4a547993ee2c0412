"""NumPy resizing for Interpolate's constant folding (private to the image family).

Resizing is separable: each resized axis maps every output coordinate back to an input
coordinate (``coordinate_transformation_mode``) and mixes the input cells around it
(``nearest``: pick one; ``linear_onnx``: two, by distance; ``cubic``: four, with the Keys
kernel of parameter ``cube_coeff``). Coordinates are computed in float32 as the runtime
does, so ties in nearest rounding fall the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv.errors import quoted

f32 = np.float32


def source_coordinates(mode: str, out_len: int, in_len: int, scale: np.float32) -> np.ndarray:
    """Input coordinate of each output cell along one axis."""
    x = np.arange(out_len, dtype=f32)
    if mode == "half_pixel":
        return (x + f32(0.5)) / scale - f32(0.5)
    if mode == "pytorch_half_pixel":
        return (x + f32(0.5)) / scale - f32(0.5) if out_len > 1 else np.zeros(out_len, f32)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + f32(0.5)) / scale
    if mode == "align_corners":
        if out_len == 1:
            return np.zeros(out_len, f32)
        return x * f32(in_len - 1) / f32(out_len - 1)
    raise ValueError(f"unknown coordinate_transformation_mode {quoted(mode)}")


def nearest_indices(mode: str, coords: np.ndarray, in_len: int, scale: np.float32) -> np.ndarray:
    """Input cell each output cell copies, by ``nearest_mode``."""
    floor = np.floor(coords)
    fraction = coords - floor
    if mode == "round_prefer_floor":
        index = np.where(fraction == f32(0.5), floor, np.round(coords))
    elif mode == "round_prefer_ceil":
        index = np.where(fraction == f32(0.5), np.ceil(coords), np.round(coords))
    elif mode == "floor":
        index = floor
    elif mode == "ceil":
        index = np.ceil(coords)
    elif mode == "simple":
        index = np.ceil(coords) if scale < 1 else np.trunc(coords)
    else:
        raise ValueError(f"unknown nearest_mode {quoted(mode)}")
    return np.clip(index, 0, in_len - 1).astype(np.int64)


def linear_weights(coords: np.ndarray, in_len: int) -> tuple[np.ndarray, np.ndarray]:
    """Two neighbours per output cell and their weights (coordinates clamped to the input)."""
    x = np.clip(coords, 0, in_len - 1)
    low = np.floor(x).astype(np.int64)
    high = np.minimum(low + 1, in_len - 1)
    t = (x - low).astype(np.float64)
    return np.stack([low, high], -1), np.stack([1.0 - t, t], -1)


def cubic_weights(coords: np.ndarray, in_len: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Four neighbours per output cell (clamped at the borders) and Keys-kernel weights."""
    floor = np.floor(coords)
    t = (coords - floor).astype(np.float64)
    indices = np.clip(floor.astype(np.int64)[:, None] + np.arange(-1, 3), 0, in_len - 1)
    distances = np.abs(t[:, None] - np.arange(-1, 3))
    near = ((a + 2) * distances - (a + 3)) * distances * distances + 1
    far = ((a * distances - 5 * a) * distances + 8 * a) * distances - 4 * a
    return indices, np.where(distances <= 1, near, far)


def resize_axis(data: np.ndarray, axis: int, indices: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Gather ``indices`` [out, taps] along ``axis`` and sum them with ``weights`` (or copy)."""
    if weights is None:
        return np.take(data, indices, axis=axis)
    gathered = np.take(data, indices, axis=axis)  # the axis becomes (out, taps)
    shape = [1] * gathered.ndim
    shape[axis], shape[axis + 1] = weights.shape
    summed: np.ndarray = (gathered * weights.reshape(shape)).sum(axis=axis + 1)
    return summed


Sampler = Callable[[np.ndarray, int, int, np.float32], tuple[np.ndarray, np.ndarray | None]]


def resize(data: np.ndarray, plan: list[tuple[int, int, np.float32]], sampler: Sampler) -> np.ndarray:
    """Resize ``data`` along each (axis, new length, scale) of ``plan`` with ``sampler``."""
    result = data.astype(np.float64)
    for axis, out_len, scale in plan:
        indices, weights = sampler(result, axis, out_len, scale)
        result = resize_axis(result, axis, indices, weights)
    return result
