"""AWQ-style input-channel scales: a per-channel factor ``s`` moved from activations to weights.

``x @ W.T == (x / s) @ (W * s).T`` for any positive ``s`` per input channel. Scaling up the
columns of ``W`` that meet large activations gives them a finer share of the 4-bit levels,
at the cost of the others. ``s = mean|x| ** alpha`` (normalised around 1), with ``alpha``
from a grid on [0, 1] chosen by the output error ``|| X W.T - (X / s) Q(W * s).T ||**2`` on
kept activation rows ``X``, ``Q`` the quantizer the final pass uses. ``alpha = 0`` (no
scaling) is among the candidates, and an ``alpha`` is kept only if it lowers the error on
each half of the rows (two disjoint sets of samples) alone: a factor that fits the
calibration rows but not samples it was not chosen on is left out, so the scaling is
applied only to the tensors where it generalises. Matrices reading the same tensor (a
decoder's query, key and value projections) share one ``s``, their errors summed. Where
``1 / s`` goes into the graph is ``apply_awq``'s business.
"""

from __future__ import annotations

import numpy as np

from irconv_transforms.weight_compression.quantize import Scheme, dequantized, quantization
from irconv_transforms.weight_compression.statistics import InputStatistics

#: The smoothing exponents tried.
ALPHAS = tuple(step / 20 for step in range(21))
#: Channels whose mean magnitude is below this share of the largest are treated as that
#: large (a dead channel would otherwise get a factor near zero).
FLOOR = 1e-5


def channel_factors(
    weights: list[np.ndarray],
    schemes: list[Scheme],
    stats: InputStatistics,
    scale_dtype: np.dtype | type,
    refine: bool = False,
) -> np.ndarray | None:
    """The factors ``s`` ``[cols]`` for ``weights`` (each ``[rows_i, cols]``, f32) quantized
    with ``schemes`` as the final pass will (activation-weighted ranges, scales refitted
    with ``refine``); None when no scaling is best."""
    rows = stats.rows.astype(np.float32)
    halves = _halves(len(rows))
    references = [rows @ weight.T for weight in weights]
    magnitude = np.maximum(stats.mean_magnitude.astype(np.float64), FLOOR * float(stats.mean_magnitude.max()) + 1e-30)
    unscaled: np.ndarray | None = None
    best_error, best = np.inf, None
    for alpha in ALPHAS:
        factor = magnitude**alpha
        factor = (factor / np.sqrt(factor.max() * factor.min())).astype(np.float32)
        scaled_rows = rows / factor
        error = np.zeros(len(halves))
        for weight, scheme, reference in zip(weights, schemes, references, strict=True):
            scaled = weight * factor
            importance = stats.mean_square / np.square(factor)
            restored = dequantized(scaled, quantization(scaled, scheme, scale_dtype, importance, refine))
            squared = np.square(scaled_rows @ restored.T - reference).sum(-1, dtype=np.float64)
            error += [float(squared[half].sum()) for half in halves]
        if unscaled is None:  # alpha 0: no scaling, what every other alpha must beat
            unscaled = error
        if float(error.sum()) < best_error and bool((error <= unscaled).all()):
            best_error, best = float(error.sum()), (None if alpha == 0 else factor)
    return best


def _halves(count: int) -> list[slice]:
    """The kept rows' first and second halves (rows come in sample order: two sets of samples)."""
    middle = count // 2
    return [slice(0, middle), slice(middle, count)] if middle else [slice(0, count)]
