"""Reading a ``.pdiparams`` file (Paddle's combined parameters) without Paddle.

The file is the parameters' dense tensors one after another, in the order of their sorted
names (the program, not the file, holds the names). One tensor, little endian:

- ``u32`` version (0), ``u64`` LoD level count and per level ``u64`` byte size + offsets
  (inference parameters have none);
- ``u32`` tensor version (0), ``i32`` size of the tensor description, the description
  (a ``VarType.TensorDesc`` message: element type and dims), then the raw data.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
from irconv.errors import ModelFileError
from irconv.graph.budget import declared_size, weight_bytes

from irconv_paddle.dtypes import dtype_of_var_type


def read_params(path: Path, names: list[str]) -> dict[str, np.ndarray]:
    """The tensors of ``path`` named by ``names`` (which must be sorted as Paddle sorts them)."""
    from irconv_paddle.proto import framework_pb2

    data = path.read_bytes()
    offset = 0
    values: dict[str, np.ndarray] = {}

    def take(size: int, what: str) -> bytes:
        nonlocal offset
        if offset + size > len(data):
            raise ModelFileError(
                f"{path}: ends inside {what} of parameter {name!r} ({len(values) + 1} of {len(names)}): "
                "the file is truncated or belongs to another program; save the model again")
        chunk = data[offset:offset + size]
        offset += size
        return chunk

    for name in names:
        (version,) = struct.unpack("<I", take(4, "the header"))
        if version != 0:
            raise ModelFileError(f"{path}: parameter {name!r} has tensor format version {version}; only 0 is known")
        (levels,) = struct.unpack("<Q", take(8, "the header"))
        for _ in range(levels):
            (size,) = struct.unpack("<Q", take(8, "the LoD"))
            take(size, "the LoD")
        take(4, "the header")
        (desc_size,) = struct.unpack("<i", take(4, "the header"))
        desc_size = declared_size(desc_size, field="tensor description size", where=f"{path}: parameter {name!r}",
                                  limit=len(data) - offset, limit_is="bytes left in the file")
        desc = framework_pb2.VarType.TensorDesc()
        try:
            desc.ParseFromString(take(desc_size, "the description"))
        except Exception as exc:  # protobuf's DecodeError: the bytes are not a TensorDesc
            raise ModelFileError(f"{path}: parameter {name!r}: unreadable tensor description ({exc})") from exc
        dtype = dtype_of_var_type(desc.data_type)
        if dtype is None:
            raise ModelFileError(f"{path}: parameter {name!r} has element type {desc.data_type}, which irconv does not read")
        shape = tuple(int(d) for d in desc.dims)
        if any(d < 0 for d in shape):
            raise ModelFileError(f"{path}: parameter {name!r} declares the shape {list(shape)}; the file is corrupt")
        raw = take(weight_bytes(shape, dtype.itemsize), "the data")
        values[name] = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if offset != len(data):
        raise ModelFileError(
            f"{path}: {len(data) - offset} bytes left after the program's {len(names)} parameters: "
            "the parameters file belongs to another program")
    return values
