"""The data-free range search (``quantize.narrowed_search``) in fewer passes over the weights.

``narrowed_search`` tries each narrowed range of every group in turn: the levels under
that range's scale, their squared errors, the errors summed in f64 and compared with the
best so far: about eight NumPy passes over the block per range, each allocating a
block-sized temporary. Here a block of rows is cut into chunks that stay in a core's
cache, each widened once into buffers kept for the block; the ends of each group's range
are found once for all the ranges; and each range costs four passes and one ``einsum``:
the errors are taken in level units (``q - w / s``, with the same levels ``q``), squared
and summed in f32 by the ``einsum``, and multiplied by ``s**2`` per group.

That estimate lies within a margin (``_margins``: about 2e-5 of it for groups of 128)
of the f64 sum ``narrowed_search`` computes. A group where one range's estimate is below
every other's by more than their margins takes that range, which is the one
``narrowed_search`` takes; the few groups where two estimates come closer (about one in a
thousand on random weights: near ties, a group of zeros, non-finite values) are searched
again by ``narrowed_search`` itself, once per block. The scales and zero points are the
same bit for bit; a group's error is its estimate (sums longer than ``SPAN`` values are
split into parts of ``SPAN`` or fewer, added in f64, so the bound stays that of ``SPAN``
terms).
"""

from __future__ import annotations

import numpy as np

from irconv_transforms.weight_compression.quantize import (
    CHUNK_VALUES,
    BlockParams,
    Scheme,
    Weights,
    as_f32_into,
    narrowed_scales,
    narrowed_search,
    rows_of,
)
from irconv_transforms.weight_compression.range_kernel import OffsetSums

#: Longest run of values summed in f32 (longer groups are summed in parts).
SPAN = 256
#: How far below the next estimate the best one must be, in units of the sum's bound.
MARGIN = 2.0


def search_rows(
    weights: Weights,
    start: int,
    stop: int,
    scheme: Scheme,
    scale_dtype: np.dtype | type,
    offset_sums: OffsetSums | None = None,
) -> BlockParams:
    """``narrowed_search`` over rows ``start:stop`` of ``weights`` ``[rows, cols]``.

    The rows are widened at once; each range's errors are computed a chunk of groups at a
    time (the chunk's values and two work arrays stay in cache), or by ``offset_sums`` (the
    compiled loop) for the whole block; the per-group steps (bounds, scales, the choice)
    are made once for the block, so that NumPy's cost per call stays small next to the
    work."""
    rows, cols = stop - start, weights.shape[1]
    size = cols // scheme.groups(cols)
    values = as_f32_into(rows_of(weights, start, stop), np.empty((rows, cols), np.float32)).reshape(-1, size)
    count = len(values)
    step = max(1, CHUNK_VALUES // size)
    ratios, offsets = (np.empty((min(count, step), size), np.float32) for _ in range(2))
    span = _span(size)
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        scales, zeros = narrowed_scales(_bounds(values, offsets, scheme, step), scheme, scale_dtype)
        sums = np.empty(scales.shape[:2], np.float32)
        if offset_sums is not None:
            shifts = np.zeros(sums.shape, np.float32) if zeros is None else zeros[..., 0].astype(np.float32)
            offset_sums(values, np.ascontiguousarray(scales[..., 0]), shifts, scheme.low, scheme.high, span, sums)
        for first in range(0, count if offset_sums is None else 0, step):
            part = slice(first, first + step)
            block = values[part]
            chunk = len(block)
            for index in range(len(scales)):
                zero = None if zeros is None else zeros[index, part]
                _level_offsets(block, scales[index, part], zero, scheme, ratios[:chunk], offsets[:chunk])
                _square_sums(offsets[:chunk], span, sums[index, part])
        estimates = sums * np.square(scales[..., 0])
        margins = _margins(estimates, scales[..., 0], span, size, scheme)
        # Each range's f64 error lies within its estimate +- its margin. A group where no
        # other range's interval reaches below the lowest upper end has one best range: the
        # one whose estimate is lowest (a NaN compares false and leaves the group unsure).
        upper = estimates + margins
        lower = np.subtract(estimates, margins, out=margins)
        reaching = lower <= np.minimum.reduce(upper, axis=0)
        best = estimates.argmin(0)[None]
    scale = np.take_along_axis(scales[..., 0], best, 0)[0]
    zero_point = None if zeros is None else np.take_along_axis(zeros[..., 0], best, 0)[0]
    error = np.take_along_axis(estimates, best, 0)[0].astype(np.float64)
    unsure = np.flatnonzero((np.count_nonzero(reaching, axis=0) != 1) | ~np.isfinite(estimates).all(0))
    if unsure.size:  # searched again by the exact search (a few dozen NumPy calls for them all)
        again = narrowed_search(values[unsure][:, None, :], scheme, scale_dtype)
        scale[unsure] = again[0].reshape(-1)
        if zero_point is not None and again[1] is not None:
            zero_point[unsure] = again[1].reshape(-1)
        error[unsure] = again[2].reshape(-1)
    shape = (rows, -1, 1)
    return BlockParams(scale.reshape(shape), None if zero_point is None else zero_point.reshape(shape), error.reshape(shape))


def _bounds(values: np.ndarray, work: np.ndarray, scheme: Scheme, step: int) -> tuple[np.ndarray, np.ndarray]:
    """``quantize.group_bounds`` of ``values`` ``[groups, g]``, shaped ``[groups, 1]``
    (``work``: scratch for ``step`` groups)."""
    if scheme.symmetric:
        where = np.empty((len(values), 1), np.intp)
        for first in range(0, len(values), step):
            block = values[first : first + step]
            magnitude = np.abs(block, out=work[: len(block)])
            where[first : first + step, 0] = magnitude.argmax(-1)
        extreme = np.take_along_axis(values, where, -1)
        return extreme, extreme
    # argmin and argmax are several times faster than min and max along short rows; the
    # value found is the same (a zero may come with the other sign, which changes no scale
    # but a group of zeros', and such a group is searched again: its ranges tie)
    low = np.take_along_axis(values, values.argmin(-1)[:, None], -1)
    return low, np.take_along_axis(values, values.argmax(-1)[:, None], -1)


def _level_offsets(
    block: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, scheme: Scheme, ratios: np.ndarray, out: np.ndarray
) -> None:
    """Per value of ``block``, its level (less the zero point) minus ``block / scale``, into
    ``out``: ``quantize.squared_error``'s error divided by the scale."""
    np.divide(block, scale, out=ratios)
    np.rint(ratios, out=out)
    if zero_point is not None:
        out += zero_point
    np.clip(out, scheme.low, scheme.high, out=out)
    if zero_point is not None:
        out -= zero_point
    out -= ratios


def _margins(estimates: np.ndarray, scales: np.ndarray, span: int, size: int, scheme: Scheme) -> np.ndarray:
    """How far each estimate may be from the f64 sum ``narrowed_search`` computes, with
    ``MARGIN`` to spare.

    Both sides take the same levels ``q`` (``rint(w / s)``, clipped). With ``u = 2**-24``,
    ``d = q s - w`` and ``a = |s| * 2**bits`` (no level times the scale is larger):
    ``narrowed_search`` computes ``q s - w`` within ``u (a + |d|)`` and its square within
    ``3u d**2 + 2u a |d|``; here ``q - w / s`` times ``s`` is within ``u (a + 2 |d|)``, its
    square within ``4u d**2 + 2u a |d|``, and the f32 sum of a span, the product by
    ``s**2`` and the f64 sum add ``(span + 3) u`` of the sum. In all at most
    ``(span + 10) u D + 4u a sqrt(size D)`` for ``D = sum d**2`` (``sum |d| <= sqrt(size D)``),
    and ``D`` is the estimate to far better than ``MARGIN``. Squares that underflow (a value
    far below its step) add at most ``size * (1 + s**2) * 2**-150`` on either side."""
    unit = 2.0**-24
    relative = np.float32(MARGIN * (span + 10) * unit)
    absolute = np.float32(MARGIN * 4 * unit * (1 << scheme.bits)) * np.abs(scales) * np.sqrt(np.float32(size) * estimates)
    underflow = np.float32(MARGIN * size * 2.0**-148) * (1 + np.square(scales))
    margins: np.ndarray = relative * estimates + absolute + underflow
    return margins


def _span(size: int) -> int:
    """Values summed in f32 at a time: all of a group's, or the largest divisor of its size
    up to ``SPAN`` (the whole group when it has none above a sixteenth of that)."""
    if size <= SPAN:
        return size
    divisor = next(d for d in range(SPAN, 0, -1) if size % d == 0)
    return divisor if divisor >= SPAN // 16 else size


def _square_sums(errors: np.ndarray, span: int, out: np.ndarray) -> None:
    """Per row of ``errors`` ``[groups, g]``, the sum of its squares (f32, into ``out``)."""
    count, size = errors.shape
    if span == size:
        np.einsum("ij,ij->i", errors, errors, out=out)
        return
    parts = errors.reshape(count, size // span, span)
    partial = np.einsum("ijk,ijk->ij", parts, parts)
    out[:] = partial.sum(-1, dtype=np.float64)
