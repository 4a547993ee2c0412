"""Reading a ``.pdiparams`` file (Paddle's combined parameters) without Paddle.

The file is the parameters' dense tensors one after another, in the order of their sorted
names (the program, not the file, holds the names). One tensor, little endian:

- ``u32`` version (0), ``u64`` LoD level count and per level ``u64`` byte size + offsets
  (inference parameters have none);
- ``u32`` tensor version (0), ``i32`` size of the tensor description, the description
  (a ``VarType.TensorDesc`` message: element type and dims), then the raw data.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

import numpy as np
from irconv.errors import ModelFileError, quoted
from irconv.graph.budget import declared_size, weight_bytes

from irconv_paddle.dtypes import dtype_of_var_type


def read_params(path: Path, names: list[str]) -> dict[str, np.ndarray]:
    """The tensors of ``path`` named by ``names`` (which must be sorted as Paddle sorts them)."""
    from irconv_paddle.proto import framework_pb2

    data = _mapped(path)
    offset = 0
    values: dict[str, np.ndarray] = {}

    def take(size: int, what: str) -> int:
        """Where the next ``size`` bytes start (after checking the file holds them)."""
        nonlocal offset
        if offset + size > len(data):
            raise ModelFileError(
                f"{path}: ends inside {what} of parameter {quoted(name)} ({len(values) + 1} of {len(names)}): "
                "the file is truncated or belongs to another program; save the model again")
        offset += size
        return offset - size

    for name in names:
        (version,) = struct.unpack_from("<I", data, take(4, "the header"))
        if version != 0:
            raise ModelFileError(f"{path}: parameter {quoted(name)} has tensor format version {version}; "
                                 "only 0 is known")
        (levels,) = struct.unpack_from("<Q", data, take(8, "the header"))
        for _ in range(levels):
            (size,) = struct.unpack_from("<Q", data, take(8, "the LoD"))
            take(size, "the LoD")
        take(4, "the header")
        (desc_size,) = struct.unpack_from("<i", data, take(4, "the header"))
        desc_size = declared_size(desc_size, field="tensor description size", where=f"{path}: parameter {quoted(name)}",
                                  limit=len(data) - offset, limit_is="bytes left in the file")
        desc = framework_pb2.VarType.TensorDesc()
        try:
            start = take(desc_size, "the description")
            desc.ParseFromString(bytes(data[start:start + desc_size]))
        except Exception as exc:  # protobuf's DecodeError: the bytes are not a TensorDesc
            raise ModelFileError(f"{path}: parameter {quoted(name)}: unreadable tensor description ({exc})") from exc
        dtype = dtype_of_var_type(desc.data_type)
        if dtype is None:
            raise ModelFileError(f"{path}: parameter {quoted(name)} has element type {desc.data_type}, "
                                 "which irconv does not read")
        shape = tuple(int(d) for d in desc.dims)
        if any(d < 0 for d in shape):
            raise ModelFileError(f"{path}: parameter {quoted(name)} declares the shape {list(shape)}; "
                                 "the file is corrupt")
        nbytes = weight_bytes(shape, dtype.itemsize)
        start = take(nbytes, "the data")
        values[name] = np.frombuffer(data, dtype=dtype, count=nbytes // dtype.itemsize, offset=start).reshape(shape)
    if offset != len(data):
        raise ModelFileError(
            f"{path}: {len(data) - offset} bytes left after the program's {len(names)} parameters: "
            "the parameters file belongs to another program")
    return values


def _mapped(path: Path) -> mmap.mmap | bytearray:
    """The file as one buffer the parameters are views of: mapped copy-on-write (read as the
    writer reaches each tensor, never copied; the views are writable, the file untouched)."""
    with open(path, "rb") as f:
        if path.stat().st_size == 0:
            return bytearray()
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
