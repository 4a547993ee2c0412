"""ONNX tensors as NumPy arrays: views over raw bytes, memory maps over external data."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from irconv.errors import ConversionError, ModelFileError, quoted
from irconv.graph.budget import check_weight_bytes, weight_bytes
from irconv.types import ElementType

# TensorProto.DataType -> NumPy dtype for the types OpenVINO IR can hold.
_NUMPY: dict[int, type[np.generic] | np.dtype[Any]] = {
    1: np.float32,
    2: np.uint8,
    3: np.int8,
    4: np.uint16,
    5: np.int16,
    6: np.int32,
    7: np.int64,
    9: np.bool_,
    10: np.float16,
    11: np.float64,
    12: np.uint32,
    13: np.uint64,
    # floats NumPy lacks: bit patterns in irconv's tagged dtypes (see irconv.narrow_float)
    16: ElementType.bf16.numpy,  # BFLOAT16
    17: ElementType.f8e4m3.numpy,  # FLOAT8E4M3FN
    19: ElementType.f8e5m2.numpy,  # FLOAT8E5M2
}
FLOAT8 = {17: ElementType.f8e4m3, 19: ElementType.f8e5m2}
BFLOAT16 = 16
_NAMES = {
    0: "UNDEFINED", 8: "STRING", 14: "COMPLEX64", 15: "COMPLEX128", 16: "BFLOAT16",
    17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2", 20: "FLOAT8E5M2FNUZ",
    21: "UINT4", 22: "INT4", 23: "FLOAT4E2M1",
}


#: Why an ONNX element type is refused, by kind.
_WHY = {
    "STRING": "string tensors are not supported: OpenVINO's compute ops do not take strings "
              "(keep text processing outside the model)",
    "COMPLEX64": "complex tensors are not supported: OpenVINO keeps complex values as a trailing dimension of 2",
    "COMPLEX128": "complex tensors are not supported: OpenVINO keeps complex values as a trailing dimension of 2",
    "UINT4": "4-bit integer tensors are not supported yet: irconv's element types have no u4 "
             "(OpenVINO IR has one; the core needs it first)",
    "INT4": "4-bit integer tensors are not supported yet: irconv's element types have no i4 "
            "(OpenVINO IR has one; the core needs it first)",
}


def numpy_dtype(data_type: int, where: str = "") -> np.dtype[Any]:
    """The NumPy dtype of an ONNX element type; unsupported types raise one clear ConversionError."""
    try:
        return np.dtype(_NUMPY[data_type])
    except KeyError:
        name = _NAMES.get(data_type, str(data_type))
        at = f" ({where})" if where else ""
        if name.endswith("FNUZ"):
            why = ("the FNUZ 8-bit floats (no negative zero, NaN at 0x80) have no OpenVINO IR element type; "
                   "OpenVINO has f8e4m3 (= FLOAT8E4M3FN) and f8e5m2 (= FLOAT8E5M2) only")
        elif name.startswith("FLOAT4"):
            why = ("4-bit float tensors are not supported yet: irconv's element types have no f4e2m1 "
                   "(OpenVINO IR has one; the core needs it first)")
        else:
            why = _WHY.get(name, "it has no OpenVINO IR element type")
        raise ConversionError(f"ONNX element type {name}{at}: {why}") from None


def element_type(data_type: int, where: str = "") -> ElementType:
    """The element type of an ONNX type code."""
    return ElementType.from_numpy(numpy_dtype(data_type, where))


def tensor_to_array(tensor: Any, base_dir: Path | None = None) -> np.ndarray:
    """A read-only array for a TensorProto without copying its bytes when possible.

    ``raw_data`` becomes a ``np.frombuffer`` view; external data becomes a ``np.memmap``
    of the side file, so multi-gigabyte weights are never read into memory here.
    """
    where = f"tensor {quoted(tensor.name)}" if tensor.name else "tensor"
    dtype = numpy_dtype(tensor.data_type, where)
    shape = tuple(int(d) for d in tensor.dims)
    if tensor.data_location == 1:  # EXTERNAL
        return _external(tensor, dtype, shape, base_dir, where)
    if tensor.HasField("raw_data"):
        raw = tensor.raw_data
        check_weight_bytes(f"{where} raw_data", shape, dtype.itemsize, len(raw))
        return np.frombuffer(raw, dtype=dtype).reshape(shape)
    return _typed_field(tensor, dtype, shape, where)


#: The TensorProto field holding the values of each type when there is no raw_data
#: (onnx.proto's comments on ``float_data`` .. ``uint64_data``); every other supported
#: type, down to bool, is one ``int32_data`` entry per value.
_TYPED_FIELDS = {1: "float_data", 7: "int64_data", 11: "double_data", 12: "uint64_data", 13: "uint64_data"}
#: Types whose int32_data entries are bit patterns, not values.
_BIT_PATTERNS = {10, BFLOAT16, *FLOAT8}


def _typed_field(tensor: Any, dtype: np.dtype, shape: tuple[int, ...], where: str) -> np.ndarray:
    """The values of a tensor kept in its typed repeated field (small tensors, attributes)."""
    values = getattr(tensor, _TYPED_FIELDS.get(tensor.data_type, "int32_data"))
    count = math.prod(shape)  # Python ints: a corrupt shape cannot overflow into a small count
    if len(values) != count:
        raise ModelFileError(f"{where}: {len(values)} values, shape {list(shape)} needs {count}")
    if tensor.data_type in _BIT_PATTERNS:  # f16, bf16, f8: the bits in the low bytes of each int32
        codes = np.asarray(values, dtype=np.int64).astype(np.dtype(f"u{dtype.itemsize}"))
        return codes.view(dtype).reshape(shape)
    try:
        return np.asarray(values, dtype=dtype).reshape(shape)
    except OverflowError:
        raise ModelFileError(f"{where}: a value lies outside the range of {dtype}") from None


def confined_path(location: str, folder: Path, where: str) -> Path:
    """The external-data file ``location`` names, which must lie inside the model's ``folder``.

    A model file is untrusted input: an absolute path, a ``..`` or a symbolic link leading
    out of the folder would make irconv read (and embed in the IR) any file the user can read.
    """
    if Path(location).is_absolute() or location.startswith(("/", "\\")):
        raise ModelFileError(
            f"{where}: external data location {quoted(location)} is an absolute path, outside the model's folder; "
            "keep the weight files next to the model and name them relative to it"
        )
    root = folder.resolve()
    path = (folder / location).resolve()
    if not path.is_relative_to(root):
        link = " through a symbolic link" if (folder / location).is_symlink() else ""
        raise ModelFileError(
            f"{where}: external data location {quoted(location)} leads outside the model's folder {root}{link}; "
            "irconv reads weights only from files inside that folder"
        )
    return path


def _external(tensor: Any, dtype: np.dtype, shape: tuple[int, ...], base_dir: Path | None, where: str) -> np.ndarray:
    info = {entry.key: entry.value for entry in tensor.external_data}
    location = info.get("location")
    if not location:
        raise ModelFileError(f"{where}: external data without a location")
    path = confined_path(location, base_dir or Path("."), where)
    if not path.is_file():
        raise ModelFileError(
            f"{where}: external data file {path} does not exist; keep the weight files next to the model"
        )
    offset = int(info.get("offset", 0))
    need = weight_bytes(shape, dtype.itemsize)
    length = int(info.get("length", need))
    check_weight_bytes(f"{where} external data length", shape, dtype.itemsize, length)
    size = path.stat().st_size
    if offset < 0 or offset + need > size:
        raise ModelFileError(
            f"{where}: external data {path} (offset {offset}, length {length}, file size {size}) "
            f"does not hold the {need} bytes of shape {list(shape)}"
        )
    if need == 0:
        return np.zeros(shape, dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)
