"""Python's cyclic garbage collector, tuned for the length of one conversion.

A conversion allocates hundreds of thousands of long-lived objects (nodes, ports, tensor
facts) and few cycles that need collecting early. With the default thresholds the
collector runs every 700 allocations and keeps re-scanning the growing graph: about 15%
of the CPU time of converting a 30k-node model, and more the larger the graph. Collecting
less often during a conversion keeps that cost near zero; the previous thresholds come
back when it ends.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

#: Allocations between young collections, and collections between older ones.
THRESHOLDS = (50_000, 20, 10)

P = ParamSpec("P")
R = TypeVar("R")


def collect_less_often(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` with the collector's thresholds raised to at least ``THRESHOLDS``."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        previous = gc.get_threshold()
        gc.set_threshold(*(max(a, b) for a, b in zip(previous, THRESHOLDS, strict=False)))
        try:
            return function(*args, **kwargs)
        finally:
            gc.set_threshold(*previous)

    return wrapper
