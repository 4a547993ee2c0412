"""Activation statistics, the interface between weight compression and whatever runs the
model on samples to measure them (irconv-llm's ``--dataset``, for decoders)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import MetaKey, OutPort


@dataclass(frozen=True)
class InputStatistics:
    """Of one tensor feeding compressed MatMuls, per input channel ``[cols]``: the mean of
    ``|x|`` and of ``x**2`` over every token; ``rows``: token rows ``[n, cols]``."""

    mean_magnitude: np.ndarray
    mean_square: np.ndarray
    rows: np.ndarray

    def divided(self, factor: np.ndarray) -> InputStatistics:
        """The statistics of ``x / factor`` (``factor`` per channel, positive)."""
        return InputStatistics(self.mean_magnitude / factor, self.mean_square / np.square(factor), self.rows / factor)


#: Set before compression by a plugin that ran the model on samples: the statistics of the
#: tensors feeding MatMul weight sites (``weight_sites.data_input``), by tensor. With it,
#: compression weights its errors by the activations; without it, it is data-free.
ACTIVATION_STATISTICS: MetaKey[dict[OutPort, InputStatistics]] = MetaKey(
    "compression.activation_statistics", dict, doc="per tensor feeding a compressed MatMul: its InputStatistics"
)
