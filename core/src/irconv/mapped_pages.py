"""Paging advice for arrays that are read-only views of a file mapping (weights read from
safetensors, ONNX external data or an IR's ``.bin`` through ``mmap``).

A plugin that reads a large mapped constant once (the IR writer encoding it, weight
compression computing its scales) prefetches it before and releases it after, so that a
model bigger than the machine's memory keeps only the pages in use resident. Arrays that
are writable or not backed by a mapping are left alone.
"""

from __future__ import annotations

import contextlib
import mmap

import numpy as np

#: Mapped ranges smaller than this are not worth a madvise call (prefetch, release).
RELEASE_MIN = 1 << 20


def release_mapped_pages(value: np.ndarray) -> None:
    """Drop ``value``'s pages from this process if it is a read-only view of a file mapping.

    Only clean file-backed pages of a read-only mapping are released (a later read maps
    them again from the page cache); anything writable is left alone.
    """
    _advise_mapped(value, mmap.MADV_DONTNEED)


def prefetch_mapped_pages(value: np.ndarray) -> None:
    """Ask the kernel to start reading ``value``'s pages from its file now, in the
    background, so that encoding it does not wait on one page fault after another."""
    _advise_mapped(value, mmap.MADV_WILLNEED)


def _advise_mapped(value: np.ndarray, advice: int) -> None:
    if value.flags.writeable or value.nbytes < RELEASE_MIN:
        return
    mapping = _mapping_of(value)
    if mapping is None:
        return
    base = np.frombuffer(mapping, np.uint8)
    start_of_map = base.__array_interface__["data"][0]
    first, last = _address_span(value)
    page = mmap.PAGESIZE
    start = (first - start_of_map) // page * page
    end = min(len(mapping), -(-(last - start_of_map) // page) * page)
    del base  # no buffer export may outlive this call
    if 0 <= start < end:
        with contextlib.suppress(OSError, ValueError, AttributeError):  # an optimisation only
            mapping.madvise(advice, start, end - start)


def _mapping_of(value: np.ndarray) -> mmap.mmap | None:
    base: object = value
    while isinstance(base, np.ndarray):
        inner = getattr(base, "_mmap", None)
        if isinstance(inner, mmap.mmap):
            return inner
        base = base.base
    return base if isinstance(base, mmap.mmap) else None


def _address_span(value: np.ndarray) -> tuple[int, int]:
    """First and one-past-last byte address ``value`` reads."""
    address = value.__array_interface__["data"][0]
    low = high = address
    for extent, stride in zip(value.shape, value.strides, strict=True):
        reach = (extent - 1) * stride
        if reach < 0:
            low += reach
        else:
            high += reach
    return low, high + value.itemsize
