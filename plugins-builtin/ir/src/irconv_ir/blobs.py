"""The ``.bin`` file: constant bytes written as they come, identical blobs stored once.

A constant goes to the file in one of two ways. A C-contiguous value stored as it is
(the usual case) is written straight from its memory, one ``write``. A value that must be
encoded on the way (f32 -> f16 compression) or gathered (a transposed view, see
``fuse.transpose_matmul_weights``) is cut into blocks; worker threads (``threads``, one a
core by default) encode blocks into reusable buffers while the calling thread writes the
finished ones in order, so the conversion runs on every core, no full-size copy is ever
allocated and the file is the same whatever the number of threads. NumPy releases the GIL
in both the cast and the write. A value of a single block is encoded by the calling thread:
handing it over would only add a wait, so a small model never starts a thread.

A rescaling not computed yet (a ``DeferredProduct``, see ``irconv.ops.deferred``) takes the
second way too: each block is computed on a worker thread just before it is encoded, so
the whole product never exists. Any other value computed block by block (``Deferred``:
quantized weights, see ``irconv_llm``) is written the same way.

4-bit values (u4, i4: one per byte in memory, see ``irconv.types``) are packed two per
byte, the first of a pair in the low nibble, as OpenVINO stores them.

Weights that are read-only views of a memory-mapped file (ONNX external data and inline
initializers, TensorFlow constants, Caffe blobs) are read ahead as a whole when their turn
comes (the kernel reads while the encoder works) and their pages are released from the
process once written: the page cache keeps them, the peak RSS no longer counts them.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any, Protocol, runtime_checkable

import numpy as np
from irconv.mapped_pages import prefetch_mapped_pages, release_mapped_pages
from irconv.ops.deferred import row_blocks
from irconv.types import ElementType

#: Blobs up to this size are keyed by a digest of all their bytes.
SMALL_BLOB = 64 * 1024
#: Elements a large blob's key samples at its head and at its tail; ``SPREAD`` more are
#: spread evenly between (each may touch a page of a cold memory map: keep them few).
SAMPLE = 1024
SPREAD = 256
#: Elements encoded per block (4 MiB of f32): large enough that per-block Python work is
#: noise, small enough that the blocks in flight stay a few MiB.
BLOCK = 1 << 20
#: Smallest block, and how many blocks a constant is cut into at least: with whole
#: ``BLOCK``s most of ResNet50's weights were a single block and the emit waited on one
#: worker (0.18 s; 0.13-0.15 s cut in 4 or more). Small blocks for every constant made
#: VGG16 (a 400 MB matrix) 0.6 -> 1.0 s.
MIN_BLOCK = 1 << 17
MIN_BLOCKS = 4
#: Blocks encoded ahead of the write, beyond one per worker thread.
AHEAD = 1

#: Encodes ``source`` (any layout) into ``out`` (flat, C order, ``out.size == source.size``)
#: and returns what it has to report (e.g. how many values were clamped); the block is an
#: array, or a ``Deferred`` for the encodings of ``_computing_first``.
EncodeBlock = Callable[[Any, np.ndarray], object]


@runtime_checkable
class Deferred(Protocol):
    """A value computed block by block while it is written (``DeferredProduct`` is one).

    ``base`` is the array it is computed from (its mapped pages are read ahead and released);
    ``blocks`` cuts it into consecutive parts in C order, each a ``Deferred`` of its own
    (for a packed type, every part but the last of an even size); ``compute_into`` writes
    a part's values into an array of its shape and dtype; ``materialize`` returns them.
    """

    @property
    def base(self) -> np.ndarray: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def size(self) -> int: ...
    def blocks(self, elements: int) -> Iterator[Deferred]: ...
    def compute_into(self, out: np.ndarray) -> np.ndarray: ...
    def materialize(self) -> np.ndarray: ...


@dataclass(frozen=True)
class Encoding:
    """How a constant's values become stored bytes: their type and the block encoder.

    ``per_item`` values share one stored item (2 for 4-bit types packed into bytes)."""

    name: str
    dtype: np.dtype
    encode: EncodeBlock
    per_item: int = 1

    def items(self, values: int) -> int:
        """Stored items holding ``values`` values."""
        return -(-values // self.per_item)


def _copy(source: np.ndarray, out: np.ndarray) -> None:
    np.copyto(out.reshape(source.shape), source)


def identity(dtype: np.dtype) -> Encoding:
    return Encoding("raw", np.dtype(dtype), _copy)


def _pack_nibbles(source: np.ndarray, out: np.ndarray) -> None:
    """Two 4-bit values a byte, the first in the low nibble; an odd last value pads with 0."""
    values = np.ascontiguousarray(source).view(np.uint8).reshape(-1)
    pairs = values.size // 2
    # A pair read as one little-endian 16-bit number holds the first value in its low byte:
    # both low nibbles kept, the second's shifted next to the first's, the low byte stored
    # (contiguous passes, 4-5x faster than every other byte's).
    both = values[: 2 * pairs].view("<u2") & 0x0F0F
    both |= both >> 4
    np.copyto(out[:pairs], both, casting="unsafe")
    if values.size % 2:
        out[pairs] = values[-1] & 0x0F


#: u4/i4 values (held one per byte) stored two per byte.
PACKED_4BIT = Encoding("packed-4bit", np.dtype(np.uint8), _pack_nibbles, per_item=2)


def storage(dtype: np.dtype) -> Encoding:
    """How values of ``dtype`` are stored when no other encoding is asked for."""
    try:
        packed = ElementType.from_numpy(dtype).is_packed
    except ValueError:
        packed = False
    return PACKED_4BIT if packed else identity(dtype)


class BlobWriter:
    """Appends constants to an open binary file and remembers where each blob landed.

    Two constants with the same stored bytes share one offset (a Const layer carries its
    own element type and shape, so only the bytes matter). A large value is keyed by its
    size and a digest of a sample of its elements; a taken key is confirmed by comparing
    the two source values element for element (as unsigned integers, so -0.0 and NaN
    payloads count as the bytes they are). Sources are kept referenced for that, which
    costs nothing: they are the graph's own constants.
    """

    def __init__(self, stream: IO[bytes], threads: int = 2) -> None:
        self._stream = stream
        self._threads = max(1, threads)
        self._buffers: dict[np.dtype, list[np.ndarray]] = {}  # dtype -> block buffers free for reuse
        self._stored: dict[tuple[str, int, bytes], list[tuple[int, np.ndarray]]] = {}
        self._pool: ThreadPoolExecutor | None = None
        self.size = 0
        self.blobs = 0
        self.shared = 0

    def add(
        self,
        value: np.ndarray | Deferred,
        encoding: Encoding | None = None,
        reports: list[object] | None = None,
    ) -> tuple[int, int]:
        """Write ``value`` (C order, little-endian, encoded by ``encoding`` when given)
        unless the same blob is already stored; returns its (offset, size). What the
        encoder returns for each block is appended to ``reports``."""
        stored = self.add_unless(value, encoding, reports)
        assert stored is not None
        return stored

    @property
    def can_take_back(self) -> bool:
        """Whether :meth:`add_unless` can take back a blob it wrote (the file is seekable)."""
        return self._stream.seekable()

    def add_unless(
        self,
        value: np.ndarray | Deferred,
        encoding: Encoding | None = None,
        reports: list[object] | None = None,
        refuse: Callable[[list[object]], bool] | None = None,
    ) -> tuple[int, int] | None:
        """:meth:`add`, except that when ``refuse`` is true of what the encoder reported
        for the blob's blocks, the blob is taken back out of the file (which must be
        seekable, see :attr:`can_take_back`) and None is returned: the encoder finds out,
        in the pass it makes anyway, what a check made beforehand would read the value once
        more for (a value f16 cannot hold)."""
        reports = [] if reports is None else reports
        first_report = len(reports)
        if not isinstance(value, np.ndarray):  # a Deferred (a protocol check costs ~50 us: not per constant)
            return self._add_deferred(value, encoding or storage(value.dtype), reports, refuse)
        value = _little_endian(value)
        prefetch_mapped_pages(value)
        encoding = encoding or storage(value.dtype)
        bits = _as_unsigned(value)
        size = encoding.items(value.size) * encoding.dtype.itemsize
        key = (encoding.name, size, _digest(bits))
        candidates = self._stored.setdefault(key, [])
        for offset, stored in candidates:
            if _same_elements(stored, bits):
                self.shared += 1
                return offset, size
        offset = self.size
        if encoding.name == "raw" and bits.flags.c_contiguous:
            if size:
                self._stream.write(bits.data.cast("B"))
        else:
            if encoding.per_item > 1:  # packed: flat runs filling whole bytes
                value = np.ascontiguousarray(value)
            step = block_size(value.size)
            step += -step % encoding.per_item
            self._write_encoded(blocks(value, step), encoding, reports)
        if refuse is not None and refuse(reports[first_report:]):
            self._take_back(offset, reports, first_report)
            return None
        self.size += size
        candidates.append((offset, bits))
        self.blobs += 1
        release_mapped_pages(value)
        return offset, size

    def _add_deferred(
        self,
        value: Deferred,
        encoding: Encoding,
        reports: list[object],
        refuse: Callable[[list[object]], bool] | None,
    ) -> tuple[int, int] | None:
        """Compute and write a deferred value; never shared (its digest would cost a
        computation of its own, and two equal rescalings of one matrix are rare)."""
        first_report = len(reports)
        prefetch_mapped_pages(value.base)
        offset, size = self.size, encoding.items(value.size) * encoding.dtype.itemsize
        parts = value.blocks(block_size(value.size))
        self._write_encoded(parts, _computing_first(encoding), reports)
        if refuse is not None and refuse(reports[first_report:]):
            self._take_back(offset, reports, first_report)
            return None
        self.size += size
        self.blobs += 1
        release_mapped_pages(value.base)
        return offset, size

    def _take_back(self, offset: int, reports: list[object], first_report: int) -> None:
        """Cut the file back to ``offset`` and forget the reports from ``first_report`` on."""
        self._stream.seek(offset)
        self._stream.truncate()
        del reports[first_report:]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self) -> BlobWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write_encoded(self, parts: Iterator[np.ndarray | Deferred], encoding: Encoding, reports: list[object]) -> None:
        """Encode ``parts`` and write them in order: on the worker threads when there are
        several parts and threads, else on this thread. Block buffers are kept for the
        next constant (a fresh one would fault its pages in again)."""
        parts = _whole_items(parts, encoding.per_item)
        first = next(parts, None)
        second = next(parts, None)
        if first is None:
            return
        blocks = itertools.chain([first], [] if second is None else [second], parts)
        free = self._buffers.setdefault(encoding.dtype, [])
        if second is None or self._threads == 1:
            for block in blocks:
                count = encoding.items(block.size)
                buffer = _buffer_for(free, count, encoding.dtype)
                reports.append(encoding.encode(block, buffer[:count]))
                self._stream.write(buffer[:count].data.cast("B"))
                free.append(buffer)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self._threads, thread_name_prefix="irconv-blob")
        pending: deque[tuple[Future[object], np.ndarray, int]] = deque()

        def write_oldest() -> None:
            future, buffer, count = pending.popleft()
            reports.append(future.result())
            self._stream.write(buffer[:count].data.cast("B"))
            free.append(buffer)

        for block in blocks:
            count = encoding.items(block.size)
            buffer = _buffer_for(free, count, encoding.dtype)
            pending.append((self._pool.submit(encoding.encode, block, buffer[:count]), buffer, count))
            if len(pending) >= self._threads + AHEAD:
                write_oldest()
        while pending:
            write_oldest()


def _buffer_for(free: list[np.ndarray], count: int, dtype: np.dtype) -> np.ndarray:
    """A buffer of ``count`` items or more: a kept one, or a new one of ``BLOCK`` items at least."""
    buffer = free.pop() if free else np.empty(0, dtype)
    return buffer if buffer.size >= count else np.empty(max(count, BLOCK), dtype)


def _whole_items(parts: Iterator[np.ndarray | Deferred], per_item: int) -> Iterator[np.ndarray | Deferred]:
    """``parts``, checked to fill whole stored items (a packed byte) except the last one."""
    previous = None
    for part in parts:
        if previous is not None and previous.size % per_item:
            raise ValueError(f"a block of {previous.size} values does not fill whole items of {per_item} values")
        if previous is not None:
            yield previous
        previous = part
    if previous is not None:
        yield previous


def _computing_first(encoding: Encoding) -> Encoding:
    """``encoding`` for blocks of a ``DeferredProduct``: each is computed (a few MiB,
    reused by the allocator) and then encoded. Stored as it is, a block is computed into
    the output buffer; encoded, it is computed in its weights' memory order and the
    encoder, which reads any layout, gathers it (no C-order copy in between)."""

    def encode(block: Deferred, out: np.ndarray) -> object:
        if encoding.name == "raw":
            block.compute_into(out.reshape(block.shape))
            return None
        return encoding.encode(block.materialize(), out)

    return Encoding(encoding.name, encoding.dtype, encode, encoding.per_item)


def block_size(elements: int) -> int:
    """Elements per block for a constant of ``elements``: ``MIN_BLOCKS`` blocks or more,
    each of ``MIN_BLOCK`` to ``BLOCK`` elements."""
    return max(MIN_BLOCK, min(BLOCK, elements // MIN_BLOCKS))


def blocks(value: np.ndarray, elements: int) -> Iterator[np.ndarray]:
    """``value`` in C order as consecutive views of about ``elements`` elements: flat runs
    of a contiguous array, else runs of whole rows along the first axes (a row of a
    transposed matrix reads one element from each row of the original: whole-row blocks
    keep those reads within a few cache lines of each other)."""
    if value.size == 0:
        return
    if value.flags.c_contiguous or value.ndim == 0:
        flat = value.reshape(-1)
        for start in range(0, flat.size, elements):
            yield flat[start : start + elements]
        return
    for key in row_blocks(value.shape, elements):
        yield value[key]


def _little_endian(value: np.ndarray) -> np.ndarray:
    if value.dtype.byteorder == ">":
        return value.astype(value.dtype.newbyteorder("<"))
    return value


def _as_unsigned(value: np.ndarray) -> np.ndarray:
    """The same memory seen as unsigned integers of the element size (bools, floats and
    one-byte structured types alike), so that comparing compares bytes."""
    if value.dtype.itemsize not in (1, 2, 4, 8):
        return np.ascontiguousarray(value).view(np.uint8)
    return value.view(np.dtype(f"u{value.dtype.itemsize}"))


def _digest(bits: np.ndarray) -> bytes:
    hasher = hashlib.blake2b(digest_size=16)
    hasher.update(str(bits.dtype).encode())
    if bits.nbytes <= SMALL_BLOB:
        hasher.update(np.ascontiguousarray(bits).tobytes())
        return hasher.digest()
    n = bits.size
    picks = np.concatenate([np.arange(SAMPLE), np.linspace(0, n - 1, SPREAD, dtype=np.int64), np.arange(n - SAMPLE, n)])
    # Sampled in memory order: a transposed view of a cold memory map read in C order
    # would touch a page per element. (Equal values in two layouts may then get two keys:
    # they are only not shared, never wrongly shared, since a hit is always compared.)
    if bits.flags.c_contiguous or bits.flags.f_contiguous:
        sample = bits.ravel(order="K")[picks]
    else:
        sample = bits[np.unravel_index(picks, bits.shape)]
    hasher.update(sample.tobytes())
    return hasher.digest()


def _same_elements(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays hold the same elements in C order, compared a block at a time
    (never a full-size temporary)."""
    if a.size != b.size or a.dtype != b.dtype:
        return False
    if a.shape != b.shape:  # same bytes under another shape: compare the flat sequences
        a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    if a.size == 0:
        return True
    if a.ndim == 0:
        return bool(a == b)
    step = max(1, BLOCK // max(1, a[0].size))
    return all(np.array_equal(a[i : i + step], b[i : i + step]) for i in range(0, a.shape[0], step))
