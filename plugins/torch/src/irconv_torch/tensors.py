"""torch dtypes as IR element types, and tensors as NumPy arrays sharing their memory."""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv.errors import ConversionError
from irconv.types import ElementType

#: torch dtype names (``str(torch.float32)`` without ``torch.``) -> element type.
_ELEMENT_TYPES = {
    "float64": ElementType.f64, "float32": ElementType.f32, "float16": ElementType.f16,
    "bfloat16": ElementType.bf16, "int64": ElementType.i64, "int32": ElementType.i32,
    "int16": ElementType.i16, "int8": ElementType.i8, "uint8": ElementType.u8, "bool": ElementType.boolean,
    "uint16": ElementType.u16, "uint32": ElementType.u32, "uint64": ElementType.u64,
    "float8_e4m3fn": ElementType.f8e4m3, "float8_e5m2": ElementType.f8e5m2,
}


def element_type(dtype: Any, what: str = "tensor") -> ElementType:
    """The element type of a ``torch.dtype``; an error naming ``what`` for one IR lacks."""
    name = str(dtype).removeprefix("torch.")
    found = _ELEMENT_TYPES.get(name)
    if found is None:
        raise ConversionError(f"{what} has dtype {name}, which OpenVINO IR has no element type for")
    return found


def to_numpy(tensor: Any, what: str) -> np.ndarray:
    """A NumPy array over ``tensor``'s memory (no copy for a dense CPU tensor of a NumPy dtype).

    bf16 and f8 tensors, which NumPy has no dtype for, are viewed as irconv's bit-pattern
    arrays (``irconv.narrow_float``) over the same bytes, so they stay bf16/f8 constants.
    """
    import torch

    bit_views = {torch.bfloat16: torch.uint16, torch.float8_e4m3fn: torch.uint8, torch.float8_e5m2: torch.uint8}
    data = tensor.detach()
    if isinstance(data, torch.nn.Parameter):
        data = data.data
    if data.device.type != "cpu":
        data = data.cpu()
    if data.dtype in bit_views:  # dtypes NumPy lacks: the same bytes, viewed as irconv's bit patterns
        bits: np.ndarray = data.view(bit_views[data.dtype]).numpy()
        return bits.view(element_type(data.dtype, what).numpy)
    if str(data.dtype).removeprefix("torch.") not in _ELEMENT_TYPES:
        raise ConversionError(f"{what} has dtype {data.dtype}, which OpenVINO IR has no element type for")
    shared: np.ndarray = data.numpy()
    return shared
