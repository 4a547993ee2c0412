"""Comparing converted outputs with a reference."""

from __future__ import annotations

import numpy as np


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """Largest |got - want| relative to the largest |want| (absolute when want is all zero)."""
    if want.size == 0:
        return 0.0
    scale = float(np.abs(want).max())
    diff = float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max())
    return diff / scale if scale > 0 else diff
