"""``TensorProto`` and ``TensorShapeProto`` as NumPy values and shapes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from irconv.errors import ModelFileError
from irconv.graph.budget import declared_size
from irconv.types import MaybeShape

from irconv_tf.dtypes import DT_STRING, base_dtype, numpy_dtype

# The repeated field that holds a TensorProto's values when tensor_content is empty.
_VALUE_FIELD = {
    1: "float_val",
    2: "double_val",
    3: "int_val",
    4: "int_val",
    5: "int_val",
    6: "int_val",
    9: "int64_val",
    10: "bool_val",
    14: "half_val",
    17: "int_val",
    19: "half_val",
    22: "uint32_val",
    23: "uint64_val",
}


def shape_of(proto: Any) -> MaybeShape:
    """A TensorShapeProto as a shape tuple (-1 dims become None; unknown rank None)."""
    if proto.unknown_rank:
        return None
    return tuple(None if d.size < 0 else int(d.size) for d in proto.dim)


def stored_shape(proto: Any, where: str) -> tuple[int, ...]:
    """The shape of a stored value (a TensorShapeProto), whose dimensions must all be known."""
    shape = shape_of(proto) or ()
    known = tuple(d for d in shape if d is not None)
    if len(known) != len(shape):
        raise ModelFileError(f"{where}: constant tensor with unknown dimensions {shape}")
    return known


def to_numpy(proto: Any, where: str = "") -> np.ndarray:
    """Decode a TensorProto; a short value list is repeated as TensorFlow does."""
    dt = base_dtype(proto.dtype)
    shape = stored_shape(proto.tensor_shape, where)
    count = math.prod(shape)  # Python ints: a corrupt shape cannot overflow into a small count
    if dt == DT_STRING:
        values = np.array(list(proto.string_val), dtype=object)
        return _fill(values, shape, count, where)
    dtype = numpy_dtype(dt, where)
    if proto.tensor_content:
        data = np.frombuffer(proto.tensor_content, dtype=dtype.newbyteorder("<"))
        if data.size != count:
            raise ModelFileError(f"{where}: tensor content has {data.size} values for shape {shape}")
        return data.astype(dtype, copy=False).reshape(shape)
    raw = getattr(proto, _VALUE_FIELD[dt])
    # halves (19) and bfloat16 (14) travel as their bit patterns in int32s
    values = np.array(raw, dtype=np.uint16).view(dtype) if dt in (14, 19) else np.array(raw, dtype=dtype)
    return _fill(values, shape, count, where)


def _fill(values: np.ndarray, shape: tuple[int, ...], count: int, where: str) -> np.ndarray:
    if values.size == count:
        return values.reshape(shape)
    # a short value list TensorFlow repeats: the shape, not the file's bytes, sets the size
    declared_size(
        count,
        field=f"element count (a rank-{len(shape)} shape given by {values.size} value(s) to repeat)",
        where=where or "constant",
        unit_bytes=max(values.itemsize, 1),
    )
    if values.size == 0:
        return np.zeros(shape, dtype=values.dtype) if values.dtype != object else np.full(shape, b"", dtype=object)
    if values.size > count:
        raise ModelFileError(f"{where}: tensor has {values.size} values for shape {shape}")
    # TensorFlow repeats the last value to fill the shape.
    padded = np.concatenate([values, np.repeat(values[-1:], count - values.size)])
    return padded.reshape(shape)
