"""Whether compression's inner loops run compiled (numba) or as NumPy passes.

Two loops (``_compiled_loops``): the range search's (each range's level offsets, squared and
summed per group) and the levels' (``quantize_block`` and the cast to the stored integer
type). Compiled, each value is read once where NumPy makes four or five passes: the search
takes about 2-3 ns a weight for the five 4-bit ranges on one core, against 5-6 ns for
NumPy's passes. But importing numba costs about 0.5 s and compiling the loops on first use
about 2 s (then cached on disk): worth it only for many weights. Without numba (it is an
ordinary dependency, but a platform may lack its wheels) the NumPy passes run; both give
the same scales and levels bit for bit (see ``range_search``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from types import ModuleType

import numpy as np

#: Weight values quantized in one ``compress.weights`` run from which the compiled loops are
#: used (NumPy's passes take about 0.6 s for this many: more than numba's import and load).
COMPILED_FROM_VALUES = 64 << 20

#: ``level_offset_sums(values [N, g], scales [R, N], zero_points [R, N], low, high, span, out [R, N])``.
OffsetSums = Callable[[np.ndarray, np.ndarray, np.ndarray, float, float, int, np.ndarray], None]
#: ``levels_into(values [rows, groups, g], scales [rows, groups, 1], zero_points (same, or empty), low, high, out)``.
LevelsInto = Callable[[np.ndarray, np.ndarray, np.ndarray, float, float, np.ndarray], None]


def offset_sums_for(values: int) -> OffsetSums | None:
    """The range search's compiled loop for a search over ``values`` weight values, or None
    where NumPy's passes are the better choice (few values) or numba is not installed."""
    return compiled_offset_sums() if values >= COMPILED_FROM_VALUES else None


def levels_into_for(values: int) -> LevelsInto | None:
    """The levels' compiled loop for a model with ``values`` weight values to quantize, or
    None (as ``offset_sums_for``)."""
    module = _compiled() if values >= COMPILED_FROM_VALUES else None
    return None if module is None else module.levels_into


def compiled_offset_sums() -> OffsetSums | None:
    """``_compiled_loops.level_offset_sums``, or None without numba."""
    module = _compiled()
    return None if module is None else module.level_offset_sums


def compiled_levels_into() -> LevelsInto | None:
    """``_compiled_loops.levels_into``, or None without numba."""
    module = _compiled()
    return None if module is None else module.levels_into


@cache
def _compiled() -> ModuleType | None:
    """The compiled loops' module, or None without numba (imported once)."""
    try:
        return importlib.import_module("irconv_transforms.weight_compression._compiled_loops")
    except ImportError:
        return None
