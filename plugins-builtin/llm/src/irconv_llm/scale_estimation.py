"""Scale estimation: per-group scales refitted to the activation-weighted squared error.

Data-free scales come from a group's range; with activation statistics, the error that
matters is ``sum_c h_c (w_c - s (q_c - z))**2`` (``h_c``: the mean squared activation of
input channel ``c``, the diagonal of the layer's input second moment). For fixed levels
``q`` that error is a quadratic in ``s`` whose minimum is
``s* = sum h w (q - z) / sum h (q - z)**2``; the levels change with the scale, so the fit
is repeated from the new levels, starting from the chosen scale and from smaller ones
(a finer step that clips a few values), and each group keeps its best scale.
"""

from __future__ import annotations

import numpy as np

from irconv_llm.quantize import Scheme, quantize_block, squared_error, stored_scale

#: Refits from one starting scale (each: levels, fitted scale, error).
REFITS = 4
#: Starting points, as shares of the range-based scale.
STARTS = (1.0, 0.9, 0.8)


def refine_scales(
    block: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray | None,
    error: np.ndarray,
    scheme: Scheme,
    scale_dtype: np.dtype | type,
    importance: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Better scales of ``block`` ``[rows, groups, g]`` than ``scale`` (whose per-group
    weighted error is ``error``), zero points kept; returns the scales and their errors."""
    best_scale, best_error = scale.copy(), error.copy()
    for share in STARTS:
        candidate = stored_scale(scale * np.float32(share), scale_dtype)
        for _ in range(REFITS):
            candidate_error = squared_error(block, candidate, zero_point, scheme, importance)
            better = candidate_error < best_error
            np.copyto(best_scale, candidate, where=better)
            np.minimum(candidate_error, best_error, out=best_error)
            candidate = _fitted(block, candidate, zero_point, scheme, scale_dtype, importance)
        candidate_error = squared_error(block, candidate, zero_point, scheme, importance)
        np.copyto(best_scale, candidate, where=candidate_error < best_error)
        np.minimum(candidate_error, best_error, out=best_error)
    return best_scale, best_error


def _fitted(
    block: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray | None,
    scheme: Scheme,
    scale_dtype: np.dtype | type,
    importance: np.ndarray | None,
) -> np.ndarray:
    """The least-squares scale for the levels ``scale`` gives (``scale`` where all levels are zero)."""
    levels = quantize_block(block, scale, zero_point, scheme)
    if zero_point is not None:
        levels -= zero_point
    weighted = levels if importance is None else levels * importance
    numerator = (weighted * block).sum(-1, keepdims=True)
    denominator = (weighted * levels).sum(-1, keepdims=True)
    usable = denominator > 0
    fitted = np.where(usable, numerator / np.where(usable, denominator, 1), scale)
    return stored_scale(fitted.astype(np.float32), scale_dtype)

