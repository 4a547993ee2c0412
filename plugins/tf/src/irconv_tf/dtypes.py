"""TensorFlow ``DataType`` values as NumPy dtypes and IR element types."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from irconv.errors import ConversionError
from irconv.types import ElementType

if TYPE_CHECKING:
    from irconv_tf.proto import types_pb2

# DataType enum values (tensorflow/core/framework/types.proto); *_REF types are value + 100.
_NUMPY_BY_DT: dict[int, np.dtype] = {
    1: np.dtype(np.float32),
    2: np.dtype(np.float64),
    3: np.dtype(np.int32),
    4: np.dtype(np.uint8),
    5: np.dtype(np.int16),
    6: np.dtype(np.int8),
    9: np.dtype(np.int64),
    10: np.dtype(np.bool_),
    14: ElementType.bf16.numpy,  # bit patterns (see irconv.narrow_float)
    17: np.dtype(np.uint16),
    19: np.dtype(np.float16),
    22: np.dtype(np.uint32),
    23: np.dtype(np.uint64),
}
DT_STRING = 7
DT_BFLOAT16 = 14
DT_RESOURCE = 20
DT_VARIANT = 21
#: complex64/complex128 have no NumPy/IR form here: inside a model they are [..., 2] real pairs.
_COMPLEX = (8, 18)


def base_dtype(dt: int) -> int:
    return dt - 100 if dt > 100 else dt


def numpy_dtype(dt: int, where: str = "") -> np.dtype:
    """The NumPy dtype for a TF DataType; unsupported types are a ConversionError."""
    try:
        return _NUMPY_BY_DT[base_dtype(dt)]
    except KeyError:
        hint = ""
        if base_dtype(dt) in _COMPLEX:
            hint = (
                " here (complex values are supported only inside the model, between the Complex, FFT, "
                "Real/Imag and ComplexAbs ops; not as model inputs, constants or operands of other ops)"
            )
        raise ConversionError(f"{where}: TensorFlow data type {dt} ({_name(dt)}) is not supported{hint}") from None


def element_type(dt: int, where: str = "") -> ElementType:
    return ElementType.from_numpy(numpy_dtype(dt, where))


def data_type(dt: int) -> types_pb2.DataType:
    """``dt`` typed as the proto enum that AttrValue's fields are declared with (its values are ints)."""
    return cast("types_pb2.DataType", dt)


def _name(dt: int) -> str:
    from irconv_tf.proto import types_pb2

    try:
        return str(types_pb2.DataType.Name(dt))
    except ValueError:
        return "unknown"
