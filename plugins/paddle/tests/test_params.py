"""Reading .pdiparams: tensors written here byte by byte from the format's description
(not by the reader under test), and the errors for files that do not fit the program."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from irconv.errors import ModelFileError
from irconv_paddle.params import read_params

_TYPES = {np.dtype("float32"): 5, np.dtype("int64"): 3, np.dtype("float16"): 4, np.dtype("int32"): 2}


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def tensor_bytes(array: np.ndarray, lod: list[bytes] | None = None) -> bytes:
    """One tensor: version, LoD levels, tensor version, TensorDesc (field 1 type, field 2 dims), data."""
    desc = b"\x08" + _varint(_TYPES[array.dtype]) + b"".join(b"\x10" + _varint(d) for d in array.shape)
    levels = lod or []
    head = struct.pack("<IQ", 0, len(levels)) + b"".join(struct.pack("<Q", len(level)) + level for level in levels)
    return head + struct.pack("<Ii", 0, len(desc)) + desc + array.astype(array.dtype.newbyteorder("<")).tobytes()


def test_reads_tensors_in_name_order(tmp_path: Path) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([7, -1], dtype=np.int64)
    c = np.full((1, 1, 2), 0.5, dtype=np.float16)
    path = tmp_path / "m.pdiparams"
    path.write_bytes(tensor_bytes(a) + tensor_bytes(b, [struct.pack("<3Q", 0, 1, 2)]) + tensor_bytes(c))
    values = read_params(path, ["a", "b", "c"])
    assert [v.dtype for v in values.values()] == [a.dtype, b.dtype, c.dtype]
    for got, want in zip(values.values(), (a, b, c), strict=True):
        np.testing.assert_array_equal(got, want)


def test_truncated_file_names_the_parameter(tmp_path: Path) -> None:
    path = tmp_path / "m.pdiparams"
    path.write_bytes((tensor_bytes(np.ones((4, 4), np.float32)) * 2)[:-5])
    with pytest.raises(ModelFileError, match=r"'w2' \(2 of 2\).*truncated"):
        read_params(path, ["w1", "w2"])


def test_extra_bytes_mean_another_program(tmp_path: Path) -> None:
    path = tmp_path / "m.pdiparams"
    path.write_bytes(tensor_bytes(np.ones(3, np.float32)) * 2)
    with pytest.raises(ModelFileError, match="belongs to another program"):
        read_params(path, ["only"])


def test_unknown_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.pdiparams"
    path.write_bytes(struct.pack("<I", 3) + tensor_bytes(np.ones(1, np.float32))[4:])
    with pytest.raises(ModelFileError, match="version 3"):
        read_params(path, ["w"])
