"""Data-free weight quantization: scales from the weights alone, values computed while written.

A weight matrix is seen as ``[rows, cols]`` with a row per output channel (the axis a
MatMul keeps) and ``cols`` the input channels it reduces. Each row, or each group of
``group`` consecutive input channels of a row, gets one scale:

- symmetric (``i8``/``i4``): ``scale = w_m / -2**(bits-1)`` with ``w_m`` the value of
  largest magnitude, sign included, so that value is exactly the lowest level and the
  levels' asymmetry (-8..7) is spent on the side that needs it;
- asymmetric (``u8``/``u4``): ``scale = (max - min) / (2**bits - 1)`` and a zero point
  ``round(-min / scale)``, so the group's range maps onto every level.

Each group also tries ranges narrowed at either end to ``SHRINKS`` (4 bits; ``SHRINKS_8BIT``
with 8 bits) of the full one and keeps the scale with the smallest squared error: clipping
a rare extreme value buys a finer step for all the others. The runtime computes
``(q - zero_point) * scale``. Scales and zero points are computed in one pass over the
weights, a block of rows at a time (``narrowed_search`` defines the choice; without
activation statistics ``range_search`` makes the same one in fewer passes); the quantized
values themselves are a ``DeferredQuantized``, computed block by block by the ``.bin``
writer's threads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

import numpy as np
from irconv import narrow_float
from irconv.ops.deferred import DeferredProduct
from irconv.types import ElementType

from irconv_transforms.weight_compression.range_kernel import LevelsInto, OffsetSums

#: A weight matrix: an array (often a view of a memory map) or a rescaling not computed yet.
Weights = np.ndarray | DeferredProduct

#: 4-bit ranges tried per group, as shares of the full range: clipping the few largest
#: values often lowers the group's squared error (the smallest error wins).
SHRINKS = (1.0, 0.95, 0.9, 0.85, 0.8)
SHRINKS_8BIT = (1.0, 0.995)
#: Weight values read per block of rows (a few MiB of f32).
ROWS_BLOCK_VALUES = 1 << 20
#: Values a block is worked on at a time (2 MiB of f32 per work array): few enough that the
#: arrays stay in cache, many enough that NumPy's cost per call, and the wait for the GIL
#: between two threads' calls, stay small next to the work (2**17 gave two threads 1.6x
#: one thread's speed, 2**19 1.7x, with the same speed on one).
CHUNK_VALUES = 1 << 19
#: The zero points the compiled levels' loop is given for a symmetric scheme.
_NO_ZERO_POINTS = np.empty((0, 0, 0), np.float32)


@dataclass(frozen=True)
class Scheme:
    """How weights are quantized: bits, with or without zero point, input channels per scale
    (-1: one scale per row)."""

    bits: int
    symmetric: bool
    group: int = -1

    @property
    def element_type(self) -> ElementType:
        table = {
            (8, True): ElementType.i8,
            (8, False): ElementType.u8,
            (4, True): ElementType.i4,
            (4, False): ElementType.u4,
        }
        return table[(self.bits, self.symmetric)]

    @property
    def low(self) -> int:
        return -(1 << (self.bits - 1)) if self.symmetric else 0

    @property
    def high(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.symmetric else (1 << self.bits) - 1

    def groups(self, cols: int) -> int:
        """Scales per row for ``cols`` input channels (one when the group does not divide them)."""
        if self.group <= 0 or self.group >= cols or cols % self.group:
            return 1
        return cols // self.group

    def describe(self) -> str:
        kind = "sym" if self.symmetric else "asym"
        return f"int{self.bits}-{kind}"


@dataclass(frozen=True)
class Quantization:
    """Per (row, group) scales ``[rows, groups, 1]`` and, asymmetric, zero points (same shape,
    held as ``int16`` levels); ``squared_error``: ``sum((w - dequantized)**2)``;
    ``worst_row_error``: the largest mean of ``(w - dequantized)**2`` over one row (output
    channel). Data-free, the errors are ``range_search``'s estimates (within about 2e-5 of
    the sums)."""

    scheme: Scheme
    scale: np.ndarray
    zero_point: np.ndarray | None
    squared_error: float
    worst_row_error: float = 0.0

    @property
    def groups(self) -> int:
        return int(self.scale.shape[1])


def row_ranges(rows: int, cols: int, values: int = ROWS_BLOCK_VALUES, multiple: int = 1) -> Iterator[tuple[int, int]]:
    """Consecutive ``(start, stop)`` row ranges of about ``values`` values each; each range
    but the last holds a multiple of ``multiple`` values."""
    step = max(1, values // max(cols, 1))
    while (step * cols) % multiple:
        step += 1
    for start in range(0, rows, step):
        yield start, min(rows, start + step)


def rows_of(weights: Weights, start: int, stop: int) -> Weights:
    """Rows ``start:stop`` of ``weights``, still uncomputed if it was."""
    if isinstance(weights, DeferredProduct):
        return weights.part(slice(start, stop))
    return weights[start:stop]


def as_f32(weights: Weights) -> np.ndarray:
    """The values of (a block of) ``weights`` as an f32 array."""
    if isinstance(weights, DeferredProduct):
        weights = weights.materialize()
    # One contiguous copy: a block of a transposed view ([in, out] weights) is strided, and
    # every range tried would walk those strides again (several times slower).
    return np.ascontiguousarray(narrow_float.widen(weights), np.float32)


def as_f32_into(weights: Weights, out: np.ndarray) -> np.ndarray:
    """``as_f32(weights)`` written into ``out`` (f32, ``weights``' shape): no temporary when
    ``weights`` is f32, f16 or bf16, or an f32 product of them; returns ``out``."""
    if isinstance(weights, DeferredProduct):
        if weights.dtype != np.float32:  # a product rounded to a narrower type: as materialized
            np.copyto(out, as_f32(weights))
            return out
        return weights.compute_into(out)
    if narrow_float.is_narrow_float_array(weights):
        return narrow_float.to_float32(weights, out=out)
    np.copyto(out, weights, casting="same_kind")
    return out


def mapped_base(weights: Weights) -> np.ndarray:
    """The array whose memory ``weights`` reads (to prefetch or release its pages)."""
    return weights.base if isinstance(weights, DeferredProduct) else weights


def quantization(
    weights: Weights,
    scheme: Scheme,
    scale_dtype: np.dtype | type = np.float32,
    importance: np.ndarray | None = None,
    refine: bool = False,
    offset_sums: OffsetSums | None = None,
) -> Quantization:
    """Scales (and zero points) of ``weights`` ``[rows, cols]`` under ``scheme``, one block
    of rows at a time (``weights`` may be a strided view of a memory map).

    Scales are rounded to ``scale_dtype``, the precision they will be stored in (f16 when
    the IR's float constants are compressed), before the levels are chosen with them: the
    levels then fit the scale the runtime will use. ``importance`` (``[cols]``, the mean
    squared activation of each input channel) weights each channel's squared error, so the
    range narrowing (and, with ``refine``, ``scale_estimation.refine``) minimises the error
    of the layer's outputs rather than of its weights. ``offset_sums``: the range search's
    compiled loop (``range_kernel``), or None for NumPy's passes."""
    rows, cols = weights.shape
    jobs = quantization_jobs(weights, scheme, scale_dtype, importance, refine, offset_sums)
    return assemble(scheme, rows, cols, [job() for job in jobs])


@dataclass(frozen=True)
class BlockParams:
    """One block of rows' share of a ``Quantization`` (``error``: per group, ``[rows, groups, 1]``)."""

    scale: np.ndarray
    zero_point: np.ndarray | None
    error: np.ndarray


def quantization_jobs(
    weights: Weights,
    scheme: Scheme,
    scale_dtype: np.dtype | type = np.float32,
    importance: np.ndarray | None = None,
    refine: bool = False,
    offset_sums: OffsetSums | None = None,
) -> list[Callable[[], BlockParams]]:
    """``quantization``'s work cut into independent blocks of rows, to run in any order or
    on any thread (NumPy and the compiled ``offset_sums`` release the GIL); ``assemble``
    joins their results in order."""
    rows, cols = weights.shape
    groups = scheme.groups(cols)
    weight = None if importance is None else np.asarray(importance, np.float32).reshape(1, groups, -1)
    return [
        partial(_block_params, weights, start, stop, scheme, scale_dtype, weight, refine, offset_sums)
        for start, stop in row_ranges(rows, cols)
    ]


def assemble(scheme: Scheme, rows: int, cols: int, blocks: list[BlockParams]) -> Quantization:
    """The ``Quantization`` of blocks of consecutive rows, in order (sums taken in a fixed
    order: the same result whichever thread computed which block)."""
    scale = np.concatenate([block.scale for block in blocks])
    zero_point = None if scheme.symmetric else np.concatenate([block.zero_point for block in blocks])
    squared_error = sum(float(block.error.sum()) for block in blocks)
    worst = max(float(block.error.sum(axis=(1, 2)).max()) for block in blocks) / max(cols, 1)
    return Quantization(scheme, scale, zero_point, squared_error, worst)


def _block_params(
    weights: Weights,
    start: int,
    stop: int,
    scheme: Scheme,
    scale_dtype: np.dtype | type,
    importance: np.ndarray | None,
    refine: bool,
    offset_sums: OffsetSums | None,
) -> BlockParams:
    """The scale among the narrowed ranges with the smallest (weighted) squared error, per
    group (data-free: ``range_search``, the same choice in fewer passes)."""
    if importance is None and not refine:
        from irconv_transforms.weight_compression.range_search import search_rows

        return search_rows(weights, start, stop, scheme, scale_dtype, offset_sums)
    groups = scheme.groups(weights.shape[1])
    block = as_f32(rows_of(weights, start, stop)).reshape(stop - start, groups, -1)
    scale, zero_point, best_error = narrowed_search(block, scheme, scale_dtype, importance)
    if refine:
        from irconv_transforms.weight_compression.scale_estimation import refine_scales

        scale, zero_point, best_error = refine_scales(block, scale, zero_point, best_error, scheme, scale_dtype, importance)
    return BlockParams(scale, zero_point, best_error)


def narrowed_search(
    block: np.ndarray, scheme: Scheme, scale_dtype: np.dtype | type, importance: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Per group of ``block`` ``[rows, groups, g]``, the scale (and zero point) among the
    narrowed ranges with the smallest (weighted) squared error, and that error (f64): the
    first such range on a tie."""
    shape = (*block.shape[:2], 1)
    scale = np.empty(shape, np.float32)
    zero_point = None if scheme.symmetric else np.empty(shape, np.int16)
    best_error = np.full(shape, np.inf)
    scales, zeros = narrowed_scales(group_bounds(block, scheme), scheme, scale_dtype)
    for index, block_scale in enumerate(scales):
        block_zero = None if zeros is None else zeros[index]
        group_error = squared_error(block, block_scale, block_zero, scheme, importance)
        # the first range's scale to start with, then any better one (a NaN error counts as better)
        better = ~(group_error >= best_error) | (index == 0)
        np.copyto(scale, block_scale, where=better)
        if zero_point is not None and block_zero is not None:
            np.copyto(zero_point, block_zero, where=better)
        np.minimum(group_error, best_error, out=best_error)
    return scale, zero_point, best_error


def squared_error(
    block: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray | None,
    scheme: Scheme,
    importance: np.ndarray | None = None,
) -> np.ndarray:
    """Per group, ``sum(importance * (block - dequantized)**2)`` (f64, shaped like ``scale``;
    ``importance`` ``[1, groups, g]`` or None for ones)."""
    levels = quantize_block(block, scale, zero_point, scheme)
    if zero_point is not None:
        levels -= zero_point
    levels *= scale
    levels -= block
    np.square(levels, out=levels)
    if importance is not None:
        levels *= importance
    error: np.ndarray = levels.sum(-1, keepdims=True, dtype=np.float64)
    return error


def narrowings(scheme: Scheme) -> list[tuple[float, float]]:
    """The (low, high) shares of a group's range tried: 4-bit symmetric ranges narrowed
    alike, asymmetric ones at either end."""
    shares = SHRINKS if scheme.bits == 4 else SHRINKS_8BIT
    if scheme.symmetric:
        return [(share, share) for share in shares]
    return [(low, high) for low in shares for high in shares]


def group_bounds(block: np.ndarray, scheme: Scheme) -> tuple[np.ndarray, np.ndarray]:
    """Per group of ``block`` ``[rows, groups, g]``, the ends of its range (``[rows, groups,
    1]``): symmetric, the value of largest magnitude (the first one, sign included) twice;
    asymmetric, the smallest and the largest value."""
    if scheme.symmetric:
        extreme = np.take_along_axis(block, np.abs(block).argmax(-1)[..., None], -1)
        return extreme, extreme
    return block.min(-1, keepdims=True), block.max(-1, keepdims=True)


def narrowed_scales(
    bounds: tuple[np.ndarray, np.ndarray], scheme: Scheme, scale_dtype: np.dtype | type
) -> tuple[np.ndarray, np.ndarray | None]:
    """Scales (and zero points) mapping each group's range (``group_bounds``), narrowed at
    its low and high ends to each of ``narrowings``' shares (the first axis), onto the levels."""
    shares = np.array(narrowings(scheme), np.float32).reshape(-1, 2, *(1,) * bounds[0].ndim)
    if scheme.symmetric:
        return stored_scale(bounds[0] * shares[:, 0] / np.float32(scheme.low), scale_dtype), None
    low = bounds[0] * shares[:, 0]
    high = bounds[1] * shares[:, 1]
    scale = stored_scale((high - low) / np.float32(scheme.high), scale_dtype)
    return scale, np.clip(np.rint(-low / scale), 0, scheme.high).astype(np.int16)


def stored_scale(scale: np.ndarray, dtype: np.dtype | type) -> np.ndarray:
    """``scale`` as ``dtype`` will hold it (f32 values), none of them zero."""
    narrow = narrow_float.element_type_of(np.dtype(dtype))  # bf16 weights: bf16 scales
    if narrow is not None:
        tiny, top = narrow_float.smallest_normal(narrow), narrow.max_finite
    else:
        info = np.finfo(dtype)
        tiny, top = float(info.smallest_normal), float(info.max)
    magnitude = np.clip(np.abs(scale), tiny, top)
    stored: np.ndarray = narrow_float.widen(narrow_float.as_array(np.copysign(magnitude, scale), dtype))
    return stored.astype(np.float32, copy=False)


def quantize_block(
    block: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, scheme: Scheme, out: np.ndarray | None = None
) -> np.ndarray:
    """Levels of ``block`` ``[rows, groups, g]`` (f32 results holding integers), into ``out``
    (which may be ``block``) when given."""
    levels: np.ndarray = np.divide(block, scale, out=out)
    np.rint(levels, out=levels)
    if zero_point is not None:
        levels += zero_point
    np.clip(levels, scheme.low, scheme.high, out=levels)
    return levels


@dataclass(frozen=True, eq=False)
class DeferredQuantized:
    """The quantized values of ``weights`` ``[rows, cols]`` (any layout, maybe a rescaling
    not computed yet), shaped ``[rows, groups, cols // groups]`` (``[rows, cols]`` with one
    scale per row), computed when asked: by the ``.bin`` writer a block of rows at a time
    (see ``irconv_ir.blobs.Deferred``). With ``stack`` matrices (the rows of experts'
    stacked weights), ``rows`` is shaped ``[stack, rows / stack]``: the same values in the
    same order. ``levels_into``: the compiled loop that computes the levels (the same ones),
    or None for NumPy's passes."""

    weights: Weights
    params: Quantization
    stack: int = 1
    levels_into: LevelsInto | None = None

    @property
    def base(self) -> np.ndarray:
        return mapped_base(self.weights)

    @property
    def shape(self) -> tuple[int, ...]:
        rows, cols = self.weights.shape
        groups = self.params.groups
        lead = (rows,) if self.stack == 1 else (self.stack, rows // self.stack)
        return (*lead, cols) if groups == 1 else (*lead, groups, cols // groups)

    @property
    def dtype(self) -> np.dtype:
        return self.params.scheme.element_type.numpy

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(self.weights.size)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def compute_into(self, out: np.ndarray) -> np.ndarray:
        """The levels written into ``out`` (C order, ``shape`` and ``dtype``), a chunk of rows
        at a time through one f32 buffer."""
        rows, cols = self.weights.shape
        params = self.params
        target = (out[out.dtype.names[0]] if out.dtype.names else out).reshape(rows, params.groups, -1)
        step = max(1, CHUNK_VALUES // max(cols, 1))
        values = np.empty(min(rows, step) * cols, np.float32)
        for first in range(0, rows, step):
            last = min(rows, first + step)
            block = values[: (last - first) * cols].reshape(last - first, params.groups, -1)
            as_f32_into(rows_of(self.weights, first, last), block.reshape(last - first, cols))
            zero_point = None if params.zero_point is None else params.zero_point[first:last]
            if self.levels_into is not None:
                zeros = _NO_ZERO_POINTS if zero_point is None else zero_point.astype(np.float32)
                self.levels_into(block, params.scale[first:last], zeros, params.scheme.low, params.scheme.high,
                                 target[first:last])
                continue
            quantize_block(block, params.scale[first:last], zero_point, params.scheme, out=block)
            np.copyto(target[first:last], block, casting="unsafe")
        return out

    def materialize(self) -> np.ndarray:
        return self.compute_into(np.empty(self.shape, self.dtype))

    def __array__(self, dtype: np.dtype | None = None, copy: object = None) -> np.ndarray:
        value = self.materialize()
        return value if dtype is None else value.astype(dtype)

    def blocks(self, elements: int) -> Iterator[DeferredQuantized]:
        """Runs of whole rows of about ``elements`` values; 4-bit runs hold an even count."""
        rows, cols = self.weights.shape
        multiple = 2 if self.params.scheme.bits == 4 else 1
        for start, stop in row_ranges(rows, cols, elements, multiple):
            params = self.params
            part = Quantization(
                params.scheme,
                params.scale[start:stop],
                None if params.zero_point is None else params.zero_point[start:stop],
                params.squared_error,
            )
            yield DeferredQuantized(rows_of(self.weights, start, stop), part, levels_into=self.levels_into)


def levels_as(values: np.ndarray, element_type: ElementType) -> np.ndarray:
    """Integer levels held in ``element_type``'s NumPy dtype (tagged for 4-bit types)."""
    dtype = element_type.numpy
    plain = dtype[0] if dtype.names else dtype  # a tagged dtype's one field
    return values.astype(plain).view(dtype)


def dequantized(weights: np.ndarray, params: Quantization) -> np.ndarray:
    """What the runtime computes from ``weights``' levels under ``params`` (f32 ``[rows, cols]``)."""
    rows, cols = weights.shape
    levels = quantize_block(as_f32(weights).reshape(rows, params.groups, -1), params.scale, params.zero_point, params.scheme)
    if params.zero_point is not None:
        levels -= params.zero_point
    levels *= params.scale
    return levels.reshape(rows, cols)
