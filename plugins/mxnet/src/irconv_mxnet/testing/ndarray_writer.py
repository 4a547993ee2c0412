"""Writing NDArray list files from the format spec (see ``irconv_mxnet.ndarray_file``),
in every version MXNet has written, so the reader is tested without MXNet."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from irconv_mxnet.ndarray_file import DTYPES, LEGACY_V1_MAGIC, LIST_MAGIC, V2_MAGIC, V3_MAGIC

#: "legacy0": no magic, u32 dims; "v1": legacy magic; "v2": current; "v3": NumPy-shape arrays.
FORMATS = ("legacy0", "v1", "v2", "v3")
_FLAGS = {dtype: flag for flag, dtype in DTYPES.items()}


def _shape(shape: Sequence[int]) -> bytes:
    return struct.pack(f"<i{len(shape)}q", len(shape), *shape)


def encode_array(array: np.ndarray | None, fmt: str = "v2") -> bytes:
    """One dense array (None: an empty array) in the given format."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    if array is None:
        if fmt == "legacy0":
            return struct.pack("<I", 0)
        if fmt == "v1":
            return struct.pack("<I", LEGACY_V1_MAGIC) + _shape(())
        magic = V2_MAGIC if fmt == "v2" else V3_MAGIC
        return struct.pack("<Ii", magic, 0) + (_shape(()) if fmt == "v2" else struct.pack("<i", -1))
    array = np.asarray(array, order="C")
    flag = _FLAGS[array.dtype.newbyteorder("<") if array.dtype.itemsize > 1 else array.dtype]
    device = struct.pack("<ii", 1, 0)  # cpu(0)
    body = device + struct.pack("<i", flag) + array.astype(array.dtype.newbyteorder("<")).tobytes()
    if fmt == "legacy0":
        return struct.pack(f"<I{array.ndim}I", array.ndim, *array.shape) + body
    if fmt == "v1":
        return struct.pack("<I", LEGACY_V1_MAGIC) + _shape(array.shape) + body
    magic = V2_MAGIC if fmt == "v2" else V3_MAGIC
    return struct.pack("<Ii", magic, 0) + _shape(array.shape) + body


def encode_file(arrays: Sequence[np.ndarray | None], names: Sequence[str] | None, fmt: str = "v2") -> bytes:
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))]
    parts += [encode_array(a, fmt) for a in arrays]
    names = list(names or [])
    parts.append(struct.pack("<Q", len(names)))
    for name in names:
        raw = name.encode("utf-8")
        parts.append(struct.pack("<Q", len(raw)) + raw)
    return b"".join(parts)


def write_ndarray_file(path: Path, arrays: dict[str, np.ndarray | None], fmt: str = "v2") -> Path:
    """Write named arrays as ``mx.nd.save`` would (in format ``fmt``)."""
    Path(path).write_bytes(encode_file(list(arrays.values()), list(arrays), fmt))
    return Path(path)
