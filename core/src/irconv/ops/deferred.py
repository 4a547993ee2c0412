"""Constant values computed when first read, or block by block by the emitter.

Folding a per-channel scale into a layer's weights (``fuse.linear_forward`` and
``fuse.linear_backward``) makes a new copy of every rescaled matrix in the middle stage,
which the emitter then reads once, compresses and writes. On a multi-gigabyte model those
copies are most of the conversion's peak memory, and allocating fresh memory is itself
slow. A ``DeferredProduct`` records the product instead: the emitter computes it a block
at a time while writing, and anyone else reading the constant gets the whole product,
computed then (see ``DeferredConst``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

#: Values smaller than this are computed at once: deferring them saves nothing.
DEFER_MIN_BYTES = 1 << 20


@dataclass(frozen=True, eq=False)
class DeferredProduct:
    """``base * factor``, computed in ``compute`` precision and rounded once to
    ``base.dtype``; ``factor`` is a broadcast view of the same shape as ``base`` (a
    per-channel vector costs no memory). The product takes ``base``'s memory order."""

    base: np.ndarray
    factor: np.ndarray
    compute: np.dtype

    @classmethod
    def of(cls, base: np.ndarray, factor: np.ndarray, compute: np.dtype) -> DeferredProduct:
        return cls(base, np.broadcast_to(factor, base.shape), np.dtype(compute))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.base.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.base.dtype

    @property
    def ndim(self) -> int:
        return self.base.ndim

    @property
    def size(self) -> int:
        return int(self.base.size)

    @property
    def nbytes(self) -> int:
        return int(self.base.nbytes)

    @property
    def T(self) -> DeferredProduct:  # noqa: N802 - the ndarray spelling
        return DeferredProduct(self.base.T, self.factor.T, self.compute)

    def compute_into(self, out: np.ndarray) -> np.ndarray:
        """The product written into ``out`` (same shape, any layout); returns ``out``."""
        with np.errstate(invalid="ignore", over="ignore"):
            # NumPy casts to ``compute`` through small buffers: no full-size temporary.
            np.multiply(self.base, self.factor, out=out, dtype=self.compute, casting="unsafe")
        return out

    def materialize(self) -> np.ndarray:
        """The whole product, in ``base``'s memory order."""
        return self.compute_into(np.empty_like(self.base))

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        value = self.materialize()
        return value if dtype is None else value.astype(dtype)

    def blocks(self, elements: int) -> Iterator[DeferredProduct]:
        """Consecutive parts of about ``elements`` values, in C order of the product."""
        for key in row_blocks(self.shape, elements):
            yield DeferredProduct(self.base[key], self.factor[key], self.compute)


def row_blocks(shape: tuple[int, ...], elements: int) -> Iterator[tuple[object, ...]]:
    """Indices that cut an array of ``shape`` into consecutive runs of whole rows (C order),
    each about ``elements`` values: the first axes are walked one index at a time until
    what is left of a run is no larger than ``elements``."""
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return
    if not shape:
        yield ()
        return
    axis, inner = 0, size
    while axis < len(shape) - 1 and inner // shape[axis] >= elements:
        inner //= shape[axis]
        axis += 1
    inner //= shape[axis]
    step = max(1, elements // max(inner, 1))
    for index in np.ndindex(*shape[:axis]):
        for start in range(0, shape[axis], step):
            yield (*index, slice(start, start + step))
