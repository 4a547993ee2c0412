"""The params reader against files written from the format spec, in every version."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from irconv.errors import ModelFileError
from irconv_mxnet.ndarray_file import parse_ndarray_file, read_ndarray_file
from irconv_mxnet.testing.ndarray_writer import FORMATS, encode_array, encode_file, write_ndarray_file

DTYPES = ["float32", "float64", "float16", "uint8", "int8", "int32", "int64"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip(tmp_path: Path, fmt: str, dtype: str) -> None:
    rng = np.random.default_rng(len(dtype))
    arrays = {
        "arg:conv0_weight": (rng.standard_normal((4, 3, 3, 3)) * 10).astype(dtype),
        "aux:bn_running_var": (rng.standard_normal(7) * 10).astype(dtype),
    }
    path = write_ndarray_file(tmp_path / "m-0000.params", arrays, fmt)
    read = read_ndarray_file(path)
    assert read.names == list(arrays)
    for name, want in arrays.items():
        got = read.named()[name]
        assert got is not None and got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_arrays_read_as_none(fmt: str) -> None:
    read = parse_ndarray_file(encode_file([None, np.ones(2, np.float32)], ["a", "b"], fmt))
    assert read.arrays[0] is None
    np.testing.assert_array_equal(read.arrays[1], np.ones(2, np.float32))


def test_numpy_shape_scalar() -> None:
    read = parse_ndarray_file(encode_file([np.asarray(2.5, np.float32)], ["s"], "v3"))
    assert read.arrays[0] is not None and read.arrays[0].shape == () and float(read.arrays[0]) == 2.5


def test_unnamed_list() -> None:
    read = parse_ndarray_file(encode_file([np.arange(3, dtype=np.int64)], None))
    assert read.names == [] and read.arrays[0] is not None and list(read.arrays[0]) == [0, 1, 2]


def test_bfloat16_widens_to_float32() -> None:
    values = np.asarray([1.5, -2.0, 3.25], np.float32)
    raw = (values.view(np.uint32) >> 16).astype("<u2").tobytes()
    body = struct.pack("<Ii", 0xF993FAC9, 0) + struct.pack("<iq", 1, 3) + struct.pack("<iii", 1, 0, 12) + raw
    data = struct.pack("<QQQ", 0x112, 0, 1) + body + struct.pack("<Q", 0)
    np.testing.assert_array_equal(parse_ndarray_file(data).arrays[0], values)


def test_row_sparse_is_densified() -> None:
    # storage type 1: storage shape [2, 3], shape [5, 3], then one aux array (row indices).
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    rows = np.asarray([1, 3], np.int64)
    body = struct.pack("<Ii", 0xF993FAC9, 1) + struct.pack("<iqq", 2, 2, 3) + struct.pack("<iqq", 2, 5, 3)
    body += struct.pack("<iii", 1, 0, 0) + struct.pack("<i", 6) + struct.pack("<iq", 1, 2)
    body += values.tobytes() + rows.tobytes()
    data = struct.pack("<QQQ", 0x112, 0, 1) + body + struct.pack("<Q", 0)
    dense = parse_ndarray_file(data).arrays[0]
    want = np.zeros((5, 3), np.float32)
    want[[1, 3]] = values
    np.testing.assert_array_equal(dense, want)


def test_not_an_ndarray_file(tmp_path: Path) -> None:
    path = tmp_path / "x.params"
    path.write_bytes(b"PK\x03\x04" + b"\0" * 40)
    with pytest.raises(ModelFileError, match="not an MXNet NDArray file"):
        read_ndarray_file(path)


def test_truncated_file_is_reported() -> None:
    data = encode_file([np.ones((4, 4), np.float32)], ["w"])
    with pytest.raises(ModelFileError, match="truncated"):
        parse_ndarray_file(data[:60])


def test_unknown_dtype_flag() -> None:
    data = bytearray(encode_array(np.ones(2, np.float32)))
    data[-8 - 4 : -8] = struct.pack("<i", 99)  # the dtype flag sits before the 8 data bytes
    file = struct.pack("<QQQ", 0x112, 0, 1) + bytes(data) + struct.pack("<Q", 0)
    with pytest.raises(ModelFileError, match="unknown dtype flag 99"):
        parse_ndarray_file(file)
