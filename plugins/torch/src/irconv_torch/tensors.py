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

    bf16 has no NumPy dtype in irconv's constants, so a bf16 tensor becomes f32 (a copy);
    the IR's ``--compress-to-fp16`` can halve it again.
    """
    import torch

    data = tensor.detach()
    if isinstance(data, torch.nn.Parameter):
        data = data.data
    if data.device.type != "cpu":
        data = data.cpu()
    if data.dtype == torch.bfloat16:
        data = data.float()
    elif data.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        bits: np.ndarray = data.view(torch.uint8).numpy()
        return bits.view(element_type(data.dtype, what).numpy)
    elif str(data.dtype).removeprefix("torch.") not in _ELEMENT_TYPES:
        raise ConversionError(f"{what} has dtype {data.dtype}, which OpenVINO IR has no element type for")
    shared: np.ndarray = data.numpy()
    return shared
