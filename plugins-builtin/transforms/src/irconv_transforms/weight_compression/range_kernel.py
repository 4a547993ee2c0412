"""Whether the range search runs its inner loop compiled (numba) or as NumPy passes.

The compiled loop makes each value's pass over all ranges one read (about 1.4 ns a weight
for the five 4-bit ranges on one core, against about 9 ns for NumPy's passes), but
importing numba costs about 0.5 s and compiling the loop on first use about 2 s (then
cached on disk): worth it only for a search over many weights. Without numba (it is an
ordinary dependency, but a platform may lack its wheels) the NumPy passes run; both give
the same scales bit for bit (see ``range_search``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache

import numpy as np

#: Weight values searched in one ``compress.weights`` run from which the compiled loop is
#: used (NumPy's passes take about 0.6 s for this many: more than numba's import and load).
COMPILED_FROM_VALUES = 64 << 20

#: ``level_offset_sums(values [N, g], scales [R, N], zero_points [R, N], low, high, span, out [R, N])``.
OffsetSums = Callable[[np.ndarray, np.ndarray, np.ndarray, float, float, int, np.ndarray], None]


def offset_sums_for(values: int) -> OffsetSums | None:
    """The compiled loop for a search over ``values`` weight values, or None where NumPy's
    passes are the better choice (few values) or numba is not installed."""
    return compiled_offset_sums() if values >= COMPILED_FROM_VALUES else None


@cache
def compiled_offset_sums() -> OffsetSums | None:
    """``_compiled_sums.level_offset_sums``, or None without numba (imported once)."""
    try:
        module = importlib.import_module("irconv_transforms.weight_compression._compiled_sums")
    except ImportError:
        return None
    kernel: OffsetSums = module.level_offset_sums
    return kernel
