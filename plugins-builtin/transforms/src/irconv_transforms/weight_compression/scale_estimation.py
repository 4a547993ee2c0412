"""Scale estimation: per-group scales (and zero points) refitted to the activation-weighted error.

Data-free scales come from a group's range; with activation statistics, the error that
matters is ``sum_c h_c (w_c - s (q_c - z))**2`` (``h_c``: the mean squared activation of
input channel ``c``, the diagonal of the layer's input second moment). For fixed levels
``q`` that error is a quadratic in ``s`` whose minimum is
``s* = sum h w (q - z) / sum h (q - z)**2``; with a zero point it is a weighted linear
regression of ``w`` on ``q`` whose slope is the scale and whose intercept ``-s z`` gives the
zero point (rounded to a level, then the scale fitted again for it), and the neighbouring
zero points are tried with their own fitted scales. The levels change with
the scale, so each fit is repeated from the new levels, starting from the chosen scale and
from smaller ones (a finer step that clips more values), and each group keeps the scale
and zero point with the smallest error.
"""

from __future__ import annotations

import numpy as np

from irconv_transforms.weight_compression.quantize import Scheme, quantize_block, squared_error, stored_scale

#: Refits from one starting scale (each: levels, fitted scale, error).
REFITS = 3
#: Starting points, as shares of the range-based scale.
STARTS = (1.0, 0.9, 0.8, 0.7, 0.6)


def refine_scales(
    block: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray | None,
    error: np.ndarray,
    scheme: Scheme,
    scale_dtype: np.dtype | type,
    importance: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Better scales (and zero points) of ``block`` ``[rows, groups, g]`` than ``scale`` and
    ``zero_point`` (whose per-group weighted error is ``error``); returns the scales, zero
    points and their errors."""
    best = _Best(scale.copy(), None if zero_point is None else zero_point.copy(), error.copy())
    for share in STARTS:
        candidate = stored_scale(scale * np.float32(share), scale_dtype)
        zero = zero_point
        for _ in range(REFITS):
            best.offer(block, candidate, zero, scheme, importance)
            levels = quantize_block(block, candidate, zero, scheme)
            if zero is not None:
                joint_scale, joint_zero = _fitted_with_zero(block, levels, candidate, zero, scheme, scale_dtype, importance)
                best.offer(block, joint_scale, joint_zero, scheme, importance)
                for step in (-1, 1):  # the neighbouring zero points, the scale fitted to each
                    shifted = np.clip(zero + step, scheme.low, scheme.high).astype(zero.dtype)
                    moved = quantize_block(block, candidate, shifted, scheme)
                    best.offer(block, _fitted(block, moved, candidate, shifted, scale_dtype, importance), shifted, scheme, importance)
            candidate = _fitted(block, levels, candidate, zero, scale_dtype, importance)
        best.offer(block, candidate, zero, scheme, importance)
    return best.scale, best.zero_point, best.error


class _Best:
    """Each group's best scale and zero point so far, and its error."""

    def __init__(self, scale: np.ndarray, zero_point: np.ndarray | None, error: np.ndarray) -> None:
        self.scale, self.zero_point, self.error = scale, zero_point, error

    def offer(
        self,
        block: np.ndarray,
        scale: np.ndarray,
        zero_point: np.ndarray | None,
        scheme: Scheme,
        importance: np.ndarray | None,
    ) -> None:
        candidate_error = squared_error(block, scale, zero_point, scheme, importance)
        better = candidate_error < self.error
        np.copyto(self.scale, scale, where=better)
        if self.zero_point is not None and zero_point is not None:
            np.copyto(self.zero_point, zero_point, where=better)
        np.minimum(candidate_error, self.error, out=self.error)


def _fitted(
    block: np.ndarray,
    levels: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray | None,
    scale_dtype: np.dtype | type,
    importance: np.ndarray | None,
) -> np.ndarray:
    """The least-squares scale for ``levels`` and ``zero_point`` (``scale`` where all the
    shifted levels are zero)."""
    shifted = levels if zero_point is None else levels - zero_point
    weighted = shifted if importance is None else shifted * importance
    numerator = (weighted * block).sum(-1, keepdims=True)
    denominator = (weighted * shifted).sum(-1, keepdims=True)
    usable = denominator > 0
    fitted = np.where(usable, numerator / np.where(usable, denominator, 1), scale)
    return stored_scale(fitted.astype(np.float32), scale_dtype)


def _fitted_with_zero(
    block: np.ndarray,
    levels: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray,
    scheme: Scheme,
    scale_dtype: np.dtype | type,
    importance: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """The weighted regression of ``block`` on ``levels``: slope and intercept give a scale
    and a zero point (a level); the scale is then fitted again for that zero point. Groups
    whose levels are all equal keep ``scale`` and ``zero_point``."""
    weight = np.ones_like(block) if importance is None else np.broadcast_to(importance, block.shape)
    total = weight.sum(-1, keepdims=True, dtype=np.float64)
    mean_level = (weight * levels).sum(-1, keepdims=True, dtype=np.float64) / total
    mean_value = (weight * block).sum(-1, keepdims=True, dtype=np.float64) / total
    centred = levels - mean_level
    covariance = (weight * centred * (block - mean_value)).sum(-1, keepdims=True, dtype=np.float64)
    variance = (weight * centred * centred).sum(-1, keepdims=True, dtype=np.float64)
    usable = (variance > 0) & (total > 0)
    slope = np.where(usable, covariance / np.where(usable, variance, 1), scale)
    usable &= slope > 0
    slope = np.where(usable, slope, scale)
    zero = np.where(usable, np.rint(mean_level - mean_value / slope), zero_point)
    zero = np.clip(zero, scheme.low, scheme.high).astype(zero_point.dtype)
    fitted = _fitted(block, levels, slope.astype(np.float32), zero, scale_dtype, importance)
    return fitted, zero
