"""AWQ-style input-channel scales: a per-channel factor ``s`` moved from activations to weights.

``x @ W.T == (x / s) @ (W * s).T`` for any positive ``s`` per input channel. Scaling up the
columns of ``W`` that meet large activations gives them a finer share of the 4-bit levels,
at the cost of the others. ``s = mean|x| ** alpha`` (normalised around 1), with ``alpha``
from a grid on [0, 1] chosen by the output error ``|| X W.T - (X / s) Q(W * s).T ||**2`` on
kept activation rows ``X``, ``Q`` the quantizer the final pass uses (``alpha = 0``, no scaling, is among the candidates: the search
never does worse than data-free on those rows). Matrices reading the same tensor (a
decoder's query, key and value projections) share one ``s``, their errors summed. Where
``1 / s`` goes into the graph is ``apply_awq``'s business.
"""

from __future__ import annotations

import numpy as np

from irconv_llm.activation_stats import InputStatistics
from irconv_llm.quantize import Scheme, dequantized, quantization

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
    references = [rows @ weight.T for weight in weights]
    magnitude = np.maximum(stats.mean_magnitude.astype(np.float64), FLOOR * float(stats.mean_magnitude.max()) + 1e-30)
    best_error, best = np.inf, None
    for alpha in ALPHAS:
        factor = (magnitude**alpha)
        factor = (factor / np.sqrt(factor.max() * factor.min())).astype(np.float32)
        scaled_rows = rows / factor
        error = 0.0
        for weight, scheme, reference in zip(weights, schemes, references, strict=True):
            scaled = weight * factor
            importance = stats.mean_square / np.square(factor)
            restored = dequantized(scaled, quantization(scaled, scheme, scale_dtype, importance, refine))
            error += float(np.square(scaled_rows @ restored.T - reference).sum(dtype=np.float64))
        if error < best_error:
            best_error, best = error, (None if alpha == 0 else factor)
    return best
