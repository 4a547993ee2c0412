"""Compression's inner loops compiled with numba (imported only by ``range_kernel``).

``level_offset_sums``, the range search's: one pass over a block's values per range: each value's level under the range's scale (and
zero point), the offset of that level from ``value / scale``, squared and summed per group.
The same arithmetic as ``range_search._level_offsets`` (IEEE division, rounding half to
even, f32 offsets; no fast-math flags, under which a reciprocal or a reordered offset
would change them) and, as ``range_search._square_sums``, f32 sums of at most ``span``
squares added in f64; only the order of each f32 sum differs (pairwise: the margins hold
for any order). ``levels_into``, the ``.bin`` writer's: ``quantize_block`` and the cast to
the stored integer type in one pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)  # type: ignore[untyped-decorator]
def level_offset_sums(
    values: np.ndarray, scales: np.ndarray, zero_points: np.ndarray, low: float, high: float, span: int, out: np.ndarray
) -> None:  # pragma: no cover - compiled; checked against the NumPy passes by tests/llm/test_quantize.py
    """``out[k, n] = sum_j (clip(rint(v / s) + z, low, high) - z - v / s)**2`` for ``v =
    values[n, j]``, ``s = scales[k, n]``, ``z = zero_points[k, n]`` (``values`` ``[N, g]``,
    the others ``[R, N]``, f32; ``g`` a multiple of ``span``)."""
    ranges, groups = scales.shape
    parts = values.shape[1] // span
    lowest, highest = np.float32(low), np.float32(high)
    squares = np.empty(span, np.float32)
    for n in range(groups):
        for k in range(ranges):
            scale, zero = scales[k, n], zero_points[k, n]
            total = 0.0
            for part in range(parts):
                # a slice per span: its indices start at 0, which lets the loop vectorise
                chunk = values[n, part * span : (part + 1) * span]
                for j in range(span):
                    ratio = chunk[j] / scale
                    offset = min(max(np.rint(ratio) + zero, lowest), highest) - zero - ratio
                    squares[j] = offset * offset
                total += _pairwise_sum(squares)
            out[k, n] = total


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)  # type: ignore[untyped-decorator]
def _pairwise_sum(values: np.ndarray) -> np.float32:  # pragma: no cover - compiled
    """The f32 sum of ``values`` (overwritten): halves added while the length is even and
    above 8 (independent, vectorised adds), then the rest in order."""
    length = len(values)
    while length > 8 and length % 2 == 0:
        length //= 2
        for j in range(length):
            values[j] += values[j + length]
    total = np.float32(0.0)
    for j in range(length):
        total += values[j]
    return total


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)  # type: ignore[untyped-decorator]
def levels_into(
    values: np.ndarray, scales: np.ndarray, zero_points: np.ndarray, low: float, high: float, out: np.ndarray
) -> None:  # pragma: no cover - compiled; checked against quantize_block by tests/llm/test_quantize.py
    """``out[r, k, j] = clip(rint(v / s) + z, low, high)`` for ``v = values[r, k, j]``, ``s =
    scales[r, k, 0]`` and ``z = zero_points[r, k, 0]`` (``values`` ``[rows, groups, g]`` f32;
    ``zero_points`` empty when symmetric), in ``out``'s integer type: ``quantize_block`` and
    the cast in one pass. A NaN value's level is 0, as NumPy's cast gives it."""
    rows, groups, size = values.shape
    lowest, highest = np.float32(low), np.float32(high)
    shifted = zero_points.size > 0
    for row in range(rows):
        for group in range(groups):
            scale = scales[row, group, 0]
            zero = zero_points[row, group, 0] if shifted else np.float32(0.0)
            chunk = values[row, group]
            target = out[row, group]
            for j in range(size):
                level = np.rint(chunk[j] / scale)
                if level != level:
                    target[j] = 0
                else:
                    target[j] = min(max(level + zero, lowest), highest)
