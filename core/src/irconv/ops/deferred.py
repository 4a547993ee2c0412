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
import numpy.typing as npt

from irconv.narrow_float import is_narrow_float_array, to_float32

#: Values smaller than this are computed at once: deferring them saves nothing.
DEFER_MIN_BYTES = 1 << 20
#: Largest output computed through a temporary in the base's memory order (a block).
GATHER_MAX_BYTES = 16 << 20


@dataclass(frozen=True, eq=False)
class DeferredProduct:
    """``base * factor``, computed in ``compute`` precision and rounded once to
    ``result`` (``base.dtype`` when None); ``factor`` is a broadcast view of the same shape
    as ``base`` (a per-channel vector costs no memory). The product takes ``base``'s memory
    order. ``widened`` is a product by 1 into a wider type: bf16 or f16 weights read as f32."""

    base: np.ndarray
    factor: np.ndarray
    compute: np.dtype
    result: np.dtype | None = None

    @classmethod
    def of(cls, base: np.ndarray, factor: np.ndarray, compute: npt.DTypeLike,
           result: npt.DTypeLike | None = None) -> DeferredProduct:
        return cls(base, np.broadcast_to(factor, base.shape), np.dtype(compute),
                   None if result is None else np.dtype(result))

    @classmethod
    def widened(cls, base: np.ndarray, result: np.dtype) -> DeferredProduct:
        """``base`` read as the wider float type ``result``, block by block when written."""
        return cls.of(base, np.ones((), result), result, result)

    @property
    def is_widening(self) -> bool:
        """Whether the product is ``base`` itself read as a wider type (a factor of one
        everywhere: ``widened``), which needs no multiplication."""
        factor = self.factor
        return factor.size > 0 and not any(factor.strides) and bool(factor.flat[0] == 1) and self.compute == self.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.base.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.base.dtype if self.result is None else self.result

    @property
    def ndim(self) -> int:
        return self.base.ndim

    @property
    def size(self) -> int:
        return int(self.base.size)

    @property
    def nbytes(self) -> int:
        return int(self.base.size) * self.dtype.itemsize

    @property
    def T(self) -> DeferredProduct:  # noqa: N802 - the ndarray spelling
        return DeferredProduct(self.base.T, self.factor.T, self.compute, self.result)

    def compute_into(self, out: np.ndarray) -> np.ndarray:
        """The product written into ``out`` (same shape, any layout); returns ``out``.

        When ``out`` is laid out unlike ``base`` (a block of transposed weights written in
        C order) and block-sized, the product is computed in ``base``'s memory order and
        then copied: NumPy walks a multiply in the output's order, and a 3x3 filter's
        innermost run of 3 values makes that 2-3x slower than the two steps.
        """
        base = self.base
        if is_narrow_float_array(base):
            # NumPy cannot compute with irconv's bf16/f8 bit patterns: widened exactly first,
            # straight into ``out`` when the product is computed in f32 there anyway (in any
            # layout when there is nothing to multiply), else into a block-sized temporary
            # (the emitter computes one block at a time).
            widening = self.is_widening
            if out.dtype == self.compute == np.float32 and (widening or _memory_order(out) == _memory_order(base)):
                to_float32(base, out=out)
                if not widening:
                    with np.errstate(invalid="ignore", over="ignore"):
                        np.multiply(out, self.factor, out=out)
                return out
            base = to_float32(base)
        with np.errstate(invalid="ignore", over="ignore"):
            # NumPy casts to ``compute`` through small buffers: no full-size temporary.
            if out.nbytes > GATHER_MAX_BYTES or _memory_order(out) == _memory_order(base):
                np.multiply(base, self.factor, out=out, dtype=self.compute, casting="unsafe")
            else:
                in_base_order = np.empty_like(base, dtype=out.dtype)
                np.multiply(base, self.factor, out=in_base_order, dtype=self.compute, casting="unsafe")
                np.copyto(out, in_base_order)
        return out

    def materialize(self) -> np.ndarray:
        """The whole product, in ``base``'s memory order."""
        return self.compute_into(np.empty_like(self.base, dtype=self.dtype))

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        value = self.materialize()
        return value if dtype is None else value.astype(dtype)

    def part(self, key: slice | tuple[int | slice, ...]) -> DeferredProduct:
        """The product over ``base[key]``, still uncomputed, with the same compute and result
        types (a part made without ``result`` would be computed back into ``base``'s type)."""
        return DeferredProduct(self.base[key], self.factor[key], self.compute, self.result)

    def blocks(self, elements: int) -> Iterator[DeferredProduct]:
        """Consecutive parts of about ``elements`` values, in C order of the product."""
        for key in row_blocks(self.shape, elements):
            yield self.part(key)


@dataclass(frozen=True, eq=False)
class HeldValue:
    """A value kept out of constant folding and written as it is (``DeferredConst(pending=
    HeldValue(v))``): 4-bit zero points, which NumPy cannot compute with, and integer
    weights whose float form (a Convert's value) only the runtime needs."""

    value: np.ndarray

    @property
    def base(self) -> np.ndarray:
        return self.value

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.value.dtype

    @property
    def ndim(self) -> int:
        return self.value.ndim

    @property
    def size(self) -> int:
        return int(self.value.size)

    @property
    def nbytes(self) -> int:
        return int(self.value.nbytes)

    def compute_into(self, out: np.ndarray) -> np.ndarray:
        np.copyto(out, self.value.reshape(out.shape))
        return out

    def materialize(self) -> np.ndarray:
        return self.value

    def blocks(self, elements: int) -> Iterator[HeldValue]:
        yield self


def _memory_order(array: np.ndarray) -> tuple[int, ...]:
    """Axes from the largest stride to the smallest: the order memory walks them."""
    return tuple(sorted(range(array.ndim), key=lambda axis: -abs(array.strides[axis])))


def row_blocks(shape: tuple[int, ...], elements: int) -> Iterator[tuple[int | slice, ...]]:
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
