"""Reading MXNet's NDArray list files (``.params``, ``mx.nd.save``) without MXNet.

Layout (little endian), as MXNet writes it:

- file: ``u64 0x112`` (list magic), ``u64 0`` (reserved), ``u64 count`` and ``count``
  arrays, then ``u64 count`` and ``count`` names (``u64 length`` + UTF-8 bytes; no names
  at all for an unnamed list).
- array, current form: ``u32 magic`` (``0xF993FAC9``; ``0xF993FACA`` for NumPy-shape
  arrays), ``i32 storage type`` (0 dense, 1 row_sparse, 2 csr), for sparse arrays the
  storage shape, the shape, and, unless the array is empty, ``i32 device type``,
  ``i32 device id``, ``i32 dtype flag``, for sparse arrays per aux array ``i32 dtype
  flag`` + shape, then the data and the aux arrays' data.
- array, legacy forms: magic ``0xF993FAC8`` then shape, device, dtype, data (dense only);
  or no magic at all: the first ``u32`` is the number of dimensions, followed by that many
  ``u32`` dimensions, then device, dtype, data.
- shape: ``i32 ndim`` and ``ndim`` ``i64`` dimensions (``ndim`` -1: unknown).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from irconv.errors import ModelFileError
from irconv.graph.budget import declared_size

LIST_MAGIC = 0x112
LEGACY_V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA

DENSE, ROW_SPARSE, CSR = 0, 1, 2
_AUX_COUNT = {DENSE: 0, ROW_SPARSE: 1, CSR: 2}

#: mshadow type flags -> NumPy dtypes (12 is bfloat16, widened to float32 on read).
DTYPES: dict[int, np.dtype] = {
    0: np.dtype("<f4"),
    1: np.dtype("<f8"),
    2: np.dtype("<f2"),
    3: np.dtype("u1"),
    4: np.dtype("<i4"),
    5: np.dtype("i1"),
    6: np.dtype("<i8"),
    7: np.dtype("bool"),
    8: np.dtype("<i2"),
    9: np.dtype("<u2"),
    10: np.dtype("<u4"),
    11: np.dtype("<u8"),
}
BFLOAT16 = 12


@dataclass(frozen=True)
class NDArrayList:
    """The arrays of one file, in file order, with their names (empty when unnamed)."""

    arrays: list[np.ndarray | None]
    names: list[str]

    def named(self) -> dict[str, np.ndarray | None]:
        return dict(zip(self.names, self.arrays, strict=True))


class _Reader:
    def __init__(self, data: bytes, path: Path) -> None:
        self.data = data
        self.pos = 0
        self.path = path

    def fail(self, what: str) -> ModelFileError:
        return ModelFileError(f"{self.path}: not a valid MXNet NDArray file ({what} at byte {self.pos})")

    def unpack(self, fmt: str) -> tuple[int, ...]:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise self.fail("truncated")
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def u32(self) -> int:
        return self.unpack("<I")[0]

    def i32(self) -> int:
        return self.unpack("<i")[0]

    def u64(self) -> int:
        return self.unpack("<Q")[0]

    def shape(self) -> tuple[int, ...] | None:
        ndim = self.i32()
        if ndim < 0:
            return None
        return tuple(self.unpack(f"<{ndim}q")) if ndim else ()

    def array(self, dtype: np.dtype, count: int) -> np.ndarray:
        size = dtype.itemsize * count
        if count < 0 or self.pos + size > len(self.data):
            raise self.fail(f"truncated array data: {count} values of {size} bytes, {len(self.data) - self.pos} left")
        values = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.pos)
        self.pos += size
        return values

    def dtype(self) -> tuple[np.dtype, bool]:
        flag = self.i32()
        if flag == BFLOAT16:
            return np.dtype("<u2"), True
        if flag not in DTYPES:
            raise self.fail(f"unknown dtype flag {flag}")
        return DTYPES[flag], False


def read_ndarray_file(path: Path) -> NDArrayList:
    """Every array in an ``mx.nd.save`` file (dense; sparse arrays are densified)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelFileError(f"cannot read MXNet parameters {path}: {exc.strerror}") from None
    return parse_ndarray_file(data, path)


def parse_ndarray_file(data: bytes, path: Path = Path("<bytes>")) -> NDArrayList:
    reader = _Reader(data, path)
    if len(data) < 16 or reader.u64() != LIST_MAGIC:
        raise ModelFileError(f"{path} is not an MXNet NDArray file (no 0x112 list magic at its start)")
    reader.u64()  # reserved
    count = reader.u64()
    arrays = [_read_array(reader, f"{path}: array {i}") for i in range(count)]
    names: list[str] = []
    if reader.pos < len(data):
        name_count = reader.u64()
        for _ in range(name_count):
            length = reader.u64()
            raw = reader.array(np.dtype("u1"), length).tobytes()
            names.append(raw.decode("utf-8"))
        if names and len(names) != count:
            raise reader.fail(f"{count} arrays but {len(names)} names")
    return NDArrayList(arrays, names)


def _read_array(reader: _Reader, where: str) -> np.ndarray | None:
    magic = reader.u32()
    if magic in (V2_MAGIC, V3_MAGIC):
        return _read_current(reader, where, numpy_shape=magic == V3_MAGIC)
    if magic == LEGACY_V1_MAGIC:
        shape = reader.shape()
    else:  # the oldest form: the magic is the number of dimensions, dims are u32
        shape = tuple(reader.unpack(f"<{magic}I")) if magic else ()
        if not shape:
            return None
    if shape is None or (magic == LEGACY_V1_MAGIC and not shape):
        return None
    reader.unpack("<ii")  # device type, device id
    dtype, bf16 = reader.dtype()
    return _finish(reader.array(dtype, _count(shape, where)).reshape(shape), bf16)


def _count(shape: tuple[int, ...], where: str) -> int:
    """Elements of a stored shape (Python ints: a corrupt shape cannot overflow into a small count)."""
    if any(d < 0 for d in shape):
        raise ModelFileError(f"{where}: shape {list(shape)} has a negative dimension; the file is corrupt")
    return math.prod(shape)


def _read_current(reader: _Reader, where: str, numpy_shape: bool) -> np.ndarray | None:
    stype = reader.i32()
    if stype not in _AUX_COUNT:
        raise reader.fail(f"unknown storage type {stype}")
    aux_count = _AUX_COUNT[stype]
    storage_shape = reader.shape() if aux_count else None
    shape = reader.shape()
    # An empty (none) array stops after its shape: unknown rank, or 0-d outside NumPy mode.
    if shape is None or (not shape and not numpy_shape):
        return None
    reader.unpack("<ii")  # device type, device id
    dtype, bf16 = reader.dtype()
    aux: list[tuple[np.dtype, tuple[int, ...]]] = []
    for _ in range(aux_count):
        aux_dtype, _ = reader.dtype()
        aux_shape = reader.shape()
        aux.append((aux_dtype, aux_shape or ()))
    stored_shape = storage_shape if storage_shape is not None else shape
    values = _finish(reader.array(dtype, _count(stored_shape, where)).reshape(stored_shape), bf16)
    aux_values = [reader.array(d, _count(s, where)).reshape(s) for d, s in aux]
    if stype != DENSE:
        # the dense shape is declared, not stored: bound it before allocating the zeros
        declared_size(
            _count(shape, where),
            field=f"dense element count of shape {list(shape)[:8]}",
            where=where,
            unit_bytes=values.dtype.itemsize,
        )
    if stype == ROW_SPARSE:
        dense = np.zeros(shape, values.dtype)
        dense[aux_values[0].astype(np.int64)] = values
        return dense
    if stype == CSR:
        indptr, indices = (a.astype(np.int64) for a in aux_values)
        dense = np.zeros(shape, values.dtype)
        rows = np.repeat(np.arange(shape[0]), np.diff(indptr))
        dense[rows, indices] = values
        return dense
    return values


def _finish(values: np.ndarray, bf16: bool) -> np.ndarray:
    if bf16:
        return (values.astype(np.uint32) << 16).view(np.float32)
    return values
