"""Reading variables from a TensorFlow checkpoint (tensor bundle) without TensorFlow.

A bundle is ``<prefix>.index`` -- an immutable sorted table (LevelDB's SSTable format) mapping
each variable's key to a ``BundleEntryProto`` (dtype, shape, shard, offset, size, crc32c),
the empty key holding a ``BundleHeaderProto`` -- plus data shards
``<prefix>.data-0000i-of-0000n`` with the raw little-endian tensor bytes.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

import numpy as np
from irconv.errors import ModelFileError, quoted
from irconv.protowire import read_varint

from irconv_tf.dtypes import DT_STRING, base_dtype, numpy_dtype
from irconv_tf.tensors import stored_shape

_TABLE_MAGIC = 0xDB4775248B80FB57
_FOOTER_SIZE = 48
_BLOCK_TRAILER = 5  # compression type byte + masked crc32c


def _block_entries(block: bytes) -> list[tuple[bytes, bytes]]:
    """Decode one table block: prefix-compressed keys followed by restart offsets."""
    if len(block) < 4:
        raise ValueError("block too short")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if limit < 0:
        raise ValueError("bad restart count")
    entries = []
    key = b""
    pos = 0
    while pos < limit:
        shared, pos = read_varint(block, pos)
        unshared, pos = read_varint(block, pos)
        value_len, pos = read_varint(block, pos)
        if shared > len(key) or pos + unshared + value_len > limit:
            raise ValueError("bad block entry")
        key = key[:shared] + block[pos : pos + unshared]
        pos += unshared
        entries.append((key, block[pos : pos + value_len]))
        pos += value_len
    return entries


def _read_block(data: bytes, handle: bytes, where: str) -> bytes:
    offset, pos = read_varint(handle, 0)
    size, _ = read_varint(handle, pos)
    end = offset + size + _BLOCK_TRAILER
    if end > len(data):
        raise ValueError(f"block [{offset}, {end}) beyond the end of {where}")
    if data[offset + size] != 0:
        raise ValueError("compressed blocks are not supported (TensorFlow writes them uncompressed)")
    return data[offset : offset + size]


def read_table(path: Path) -> dict[bytes, bytes]:
    """Every key/value of an SSTable file."""
    data = path.read_bytes()
    if len(data) < _FOOTER_SIZE:
        raise ValueError("file too short for a table footer")
    footer = data[-_FOOTER_SIZE:]
    (magic,) = struct.unpack_from("<Q", footer, _FOOTER_SIZE - 8)
    if magic != _TABLE_MAGIC:
        raise ValueError("bad table magic number")
    _, pos = read_varint(footer, 0)  # metaindex offset
    _, pos = read_varint(footer, pos)  # metaindex size
    index = _read_block(data, footer[pos:], path.name)
    table: dict[bytes, bytes] = {}
    for _, handle in _block_entries(index):
        for key, value in _block_entries(_read_block(data, handle, path.name)):
            table[key] = value
    return table


class Checkpoint:
    """The variables of one checkpoint, read lazily from memory-mapped data shards."""

    def __init__(self, prefix: Path) -> None:
        from irconv_tf.proto import tensor_bundle_pb2

        self.prefix = prefix
        index = Path(f"{prefix}.index")
        if not index.is_file():
            raise ModelFileError(f"checkpoint index {index} is missing: variables cannot be read")
        try:
            table = read_table(index)
            header = tensor_bundle_pb2.BundleHeaderProto.FromString(table.pop(b"", b""))
            self.entries = {k.decode(): tensor_bundle_pb2.BundleEntryProto.FromString(v) for k, v in table.items()}
        except Exception as exc:
            raise ModelFileError(
                f"checkpoint index {index} is corrupt ({type(exc).__name__}: {exc}); re-save the model"
            ) from exc
        if header.endianness != 0:
            raise ModelFileError(f"checkpoint {index} is big-endian, which is not supported")
        self.num_shards = max(header.num_shards, 1)
        self._shards: dict[int, mmap.mmap] = {}

    def keys(self) -> list[str]:
        return list(self.entries)

    def _shard(self, shard_id: int) -> mmap.mmap:
        if shard_id not in self._shards:
            path = Path(f"{self.prefix}.data-{shard_id:05d}-of-{self.num_shards:05d}")
            if not path.is_file():
                raise ModelFileError(f"checkpoint data shard {path} is missing")
            with path.open("rb") as f:
                self._shards[shard_id] = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return self._shards[shard_id]

    def read_string(self, key: str) -> bytes:
        """A scalar string entry (the object graph TF2 stores under ``_CHECKPOINTABLE_OBJECT_GRAPH``)."""
        entry = self.entries.get(key)
        where = f"checkpoint {self.prefix} entry {quoted(key)}"
        if entry is None or base_dtype(entry.dtype) != DT_STRING:
            raise ModelFileError(f"{where} is missing or not a string")
        shard = self._shard(entry.shard_id)
        if entry.offset + entry.size > len(shard):
            raise ModelFileError(f"{where} lies beyond the end of its data shard; the checkpoint is corrupt")
        return _string_scalar(shard[entry.offset : entry.offset + entry.size], where)

    def read(self, key: str) -> np.ndarray:
        """The value of variable ``key`` (a copy, independent of the mapped file)."""
        entry = self.entries.get(key)
        where = f"checkpoint {self.prefix} variable {quoted(key)}"
        if entry is None:
            raise ModelFileError(f"{where} is not in the checkpoint index")
        if base_dtype(entry.dtype) == DT_STRING:
            raise ModelFileError(f"{where}: string variables are not supported")
        dtype = numpy_dtype(entry.dtype, where).newbyteorder("<")
        shape = stored_shape(entry.shape, where)
        count = int(np.prod(shape, dtype=np.int64))
        shard = self._shard(entry.shard_id)
        if entry.size != count * dtype.itemsize or entry.offset + entry.size > len(shard):
            raise ModelFileError(
                f"{where}: entry of {entry.size} bytes at {entry.offset} does not fit shape {shape} "
                f"or the data shard ({len(shard)} bytes); the checkpoint is corrupt"
            )
        raw = shard[entry.offset : entry.offset + entry.size]
        _check_crc(raw, entry.crc32c, where)
        return np.frombuffer(raw, dtype=dtype).astype(dtype.newbyteorder("="), copy=False).reshape(shape)


def _string_scalar(raw: bytes, where: str) -> bytes:
    """A scalar string tensor's bytes: varint length, masked crc32c of the lengths, data."""
    length, pos = read_varint(raw, 0)
    pos += 4
    if pos + length > len(raw):
        raise ModelFileError(f"{where}: string entry is truncated; the checkpoint is corrupt")
    return raw[pos : pos + length]


def _check_crc(raw: bytes, masked: int, where: str) -> None:
    """Verify the data checksum when a fast crc32c implementation is installed."""
    try:
        import google_crc32c  # optional: pure-Python CRC over hundreds of MB would be too slow
    except ImportError:
        return
    crc = google_crc32c.value(raw)
    rot = ((crc >> 15) | (crc << 17)) & 0xFFFFFFFF
    if (rot + 0xA282EAD8) & 0xFFFFFFFF != masked:
        raise ModelFileError(f"{where}: checksum mismatch, the checkpoint data is corrupt")
