"""The ``.bin`` file: constant bytes written as they come, identical blobs stored once."""

from __future__ import annotations

import hashlib
import os
from typing import IO

import numpy as np

#: Blobs up to this size are keyed by a digest of all their bytes.
SMALL_BLOB = 64 * 1024
#: Bytes a large blob's key samples: its head, its tail and an even spread between.
SAMPLE = 4096
COMPARE_CHUNK = 16 * 1024 * 1024


class BlobWriter:
    """Appends constants to an open binary file and remembers where each blob landed.

    Two constants with the same bytes share one offset (a Const layer carries its own
    element type and shape, so only the bytes matter). Hashing every byte of a large
    model costs more than writing it, so a large blob is keyed by its size and a digest
    of a sample of its bytes; when a key is already taken the candidate is compared byte
    for byte with the stored blob, read back from the file (``stream`` must be opened
    ``w+b``). Nothing is buffered beyond what the file object itself buffers.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._offsets: dict[tuple[int, bytes], list[int]] = {}
        self.size = 0
        self.blobs = 0
        self.shared = 0

    def add(self, value: np.ndarray) -> tuple[int, int]:
        """Write ``value`` (raw little-endian, C order) unless already stored; (offset, size)."""
        data = _little_endian_contiguous(value)
        view = memoryview(data).cast("B") if data.size else memoryview(b"")  # type: ignore[arg-type]
        key = (view.nbytes, _digest(view))
        candidates = self._offsets.setdefault(key, [])
        for offset in candidates:
            if self._stored_equals(offset, view):
                self.shared += 1
                return offset, view.nbytes
        offset = self.size
        self._stream.write(view)
        self.size += view.nbytes
        candidates.append(offset)
        self.blobs += 1
        return offset, view.nbytes

    def _stored_equals(self, offset: int, view: memoryview) -> bool:
        self._stream.flush()
        fd = self._stream.fileno()
        for start in range(0, view.nbytes, COMPARE_CHUNK):
            chunk = view[start : start + COMPARE_CHUNK]
            if os.pread(fd, chunk.nbytes, offset + start) != chunk:
                return False
        return True


def _digest(view: memoryview) -> bytes:
    hasher = hashlib.blake2b(digest_size=16)
    if view.nbytes <= SMALL_BLOB:
        hasher.update(view)
        return hasher.digest()
    hasher.update(view[:SAMPLE])
    hasher.update(view[-SAMPLE:])
    step = view.nbytes // SAMPLE
    hasher.update(np.frombuffer(view, np.uint8)[::step].tobytes())
    return hasher.digest()


def _little_endian_contiguous(value: np.ndarray) -> np.ndarray:
    """The array as the IR stores it; no copy when it already is (the usual case)."""
    if value.dtype == np.bool_:
        value = value.view(np.uint8)
    if value.dtype.byteorder == ">":
        value = value.astype(value.dtype.newbyteorder("<"))
    return np.ascontiguousarray(value)
