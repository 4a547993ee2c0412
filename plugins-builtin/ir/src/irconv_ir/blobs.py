"""The ``.bin`` file: constant bytes written as they come, identical blobs stored once."""

from __future__ import annotations

import hashlib
from typing import IO

import numpy as np


class BlobWriter:
    """Appends constants to an open binary file and remembers where each blob landed.

    Blobs are keyed by a digest of their bytes: two constants with the same bytes share
    one offset (the Const layer carries its own element type and shape, so only the
    bytes matter). Nothing is buffered beyond what the file object itself buffers.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._offsets: dict[tuple[bytes, int], int] = {}
        self.size = 0
        self.blobs = 0
        self.shared = 0

    def add(self, value: np.ndarray) -> tuple[int, int]:
        """Write ``value`` (raw little-endian, C order) unless already stored; (offset, size)."""
        data = _little_endian_contiguous(value)
        view = memoryview(data).cast("B") if data.size else memoryview(b"")
        key = (hashlib.blake2b(view, digest_size=20).digest(), view.nbytes)
        offset = self._offsets.get(key)
        if offset is not None:
            self.shared += 1
            return offset, view.nbytes
        offset = self.size
        self._stream.write(view)
        self.size += view.nbytes
        self._offsets[key] = offset
        self.blobs += 1
        return offset, view.nbytes


def _little_endian_contiguous(value: np.ndarray) -> np.ndarray:
    """The array as the IR stores it; no copy when it already is (the usual case)."""
    if value.dtype == np.bool_:
        value = value.view(np.uint8)
    if value.dtype.byteorder == ">":
        value = value.astype(value.dtype.newbyteorder("<"))
    return np.ascontiguousarray(value)
