"""A tensor's value as a user gives it on the command line (``--input x->[0.5]``,
``--freeze-placeholder-with-value x[0.5]``): parsed, typed and shaped by one rule, and
summarised for notes.

One value fills the tensor's shape (it is broadcast); otherwise there is one value per element.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from irconv.errors import UsageError, UserError
from irconv.types import MaybeShape


def parse_values(text: str, what: str) -> tuple[float, ...]:
    """``[0.5,1]``, ``0.5``, ``[1 2 3]`` or ``true``/``false`` as numbers; ``what`` says where
    they were given (``bad --input 'x->[a]'``) in the error."""
    values = []
    for item in (t for t in re.split(r"[\s,\[\]]+", text.strip()) if t):
        lowered = item.lower()
        if lowered in ("true", "false"):
            values.append(1.0 if lowered == "true" else 0.0)
            continue
        try:
            values.append(float(item))
        except ValueError:
            raise UsageError(f"{what}: value {item!r} is not a number (nor true/false)") from None
    if not values:
        raise UsageError(f"{what}: no value given")
    return tuple(values)


def fixed_value(values: Sequence[float], dtype: np.dtype, shape: MaybeShape, flag: str, name: str) -> np.ndarray:
    """``values`` as the value of input ``name`` (of ``dtype`` and ``shape``): one value fills the
    shape, otherwise one value per element. An input of unknown rank takes the values as given."""
    array = _typed(values, np.dtype(dtype), flag, name)
    if shape is None:
        return array.reshape(()) if array.size == 1 else array
    if any(d is None for d in shape):
        example = ",".join("2" if d is None else str(d) for d in shape)
        raise UserError(
            f"{flag} {name}: input {name!r} has the dynamic shape {_shape_text(shape)}, so a value cannot be "
            f"shaped to it; give its shape too, e.g. --input {name}[{example}]"
        )
    dims = tuple(int(d) for d in shape if d is not None)
    count = math.prod(dims)
    if array.size == 1:
        return np.full(dims, array.reshape(()), dtype=array.dtype)
    if array.size != count:
        raise UserError(
            f"{flag} {name}: {array.size} values for input {name!r} of shape {list(dims)}, which holds {count}; "
            f"give one value (it fills the input) or {count}"
        )
    return array.reshape(dims)


def summarise_value(array: np.ndarray, shown: int = 4) -> str:
    """A value short enough for a note: ``0.5 in every element of [1, 3, 32, 32]``, the values of a
    small array, or the shape, the count and the first few values of a large one."""
    flat = array.reshape(-1)
    if flat.size == 0:
        return f"an empty value of shape {list(array.shape)}"
    if array.ndim == 0:
        return str(flat[0])
    if (flat == flat[0]).all():
        return f"{flat[0]} in every element of {list(array.shape)}"
    if array.ndim == 1 and flat.size <= 2 * shown:
        return "[" + ", ".join(str(v) for v in flat) + "]"
    listed = ", ".join(str(v) for v in flat[: 2 * shown if flat.size <= 2 * shown else shown])
    more = "" if flat.size <= 2 * shown else ", ..."
    return f"{flat.size} values of shape {list(array.shape)}: {listed}{more}"


def _typed(values: Sequence[float], dtype: np.dtype, flag: str, name: str) -> np.ndarray:
    """The values as ``dtype``; an integer input refuses fractions and values out of its range."""
    array = np.asarray(values, dtype=np.float64)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        wrong = (array != np.round(array)) | (array < info.min) | (array > info.max)
        if wrong.any():
            raise UserError(
                f"{flag} {name}: {array[wrong][0]:g} is not a value of input {name!r}, of type {dtype} "
                f"(whole numbers {info.min}..{info.max})"
            )
    elif np.issubdtype(dtype, np.floating) and dtype.itemsize < 8:
        too_large = np.abs(array) > np.finfo(dtype).max
        if too_large.any():
            raise UserError(
                f"{flag} {name}: {array[too_large][0]:g} is out of the range of input {name!r}, of type {dtype} "
                f"(up to +-{np.finfo(dtype).max:g})"
            )
    return array.astype(dtype)


def _shape_text(shape: MaybeShape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape or ()) + "]"
