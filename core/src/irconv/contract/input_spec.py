"""``--input``: which tensors are the model's inputs, their shapes, types and fixed values.

``name[1,3,224,224]{f32}``     an input's shape and element type (each optional)
``name[1,3,1..8,?]``           a dimension range (kept in the IR) or a dynamic dimension
``name[2]{f32}->[0.5,1.0]``    a fixed value: the input becomes a constant and folds away
``node:0`` / ``0:node``        an internal tensor (output 0 of node / what feeds its input 0):
                               the graph is cut there and the tensor becomes a new input

A fixed value is one value, broadcast to the input's shape, or one value per element; the same
rule serves ``--freeze-placeholder-with-value`` (``irconv.values``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from irconv.errors import UsageError
from irconv.types import DimRange, ElementType, MaybeShape
from irconv.values import fixed_value, parse_values

_INPUT_SPEC = re.compile(
    r"^(?P<name>[^\[\]{}]*?)(?:\[(?P<shape>[^\]]*)\])?(?:\{(?P<type>[^}]*)\})?(?:->(?P<value>.+))?$", re.DOTALL
)
_RANGE = re.compile(r"^(?P<lo>\d*)\.\.(?P<hi>\d*)$")


@dataclass(frozen=True)
class InputSpec:
    """One ``--input``: a name (empty: the model's only input), and optionally a shape (None
    leaves it as is), bounds of ranged dimensions, an element type and a fixed value."""

    name: str
    shape: MaybeShape = None
    element_type: ElementType | None = None
    bounds: tuple[DimRange | None, ...] | None = None
    value: tuple[float, ...] | None = None

    @classmethod
    def parse(cls, text: str) -> InputSpec:
        found = _INPUT_SPEC.match(text.strip())
        if not found or not any(found[key] for key in ("name", "type", "value")) and found["shape"] is None:
            raise UsageError(
                f"bad --input {text!r}: expected name[d0,d1,...]{{type}}->[values], e.g. data[1,3,224,224]{{f32}} "
                "(each part optional; ? or -1 for a dynamic dimension, 1..8 for a range)"
            )
        shape: MaybeShape = None
        bounds: tuple[DimRange | None, ...] | None = None
        if found["shape"] is not None:
            dims = [_parse_dim(d, text) for d in found["shape"].split(",") if d.strip() != ""]
            shape = tuple(d if isinstance(d, int) or d is None else None for d in dims)
            if any(isinstance(d, tuple) for d in dims):
                bounds = tuple(d if isinstance(d, tuple) else None for d in dims)
        element_type = None
        if found["type"]:
            try:
                element_type = ElementType.parse(found["type"])
            except ValueError:
                raise UsageError(
                    f"bad --input {text!r}: unknown element type {found['type']!r} (try f32, i64, u8)"
                ) from None
        value = parse_values(found["value"], f"bad --input {text!r}") if found["value"] is not None else None
        return cls(found["name"].strip(), shape, element_type, bounds, value)

    def value_array(self, element_type: ElementType, shape: MaybeShape) -> np.ndarray:
        """The fixed value as an array of the input's type, shaped like the input."""
        assert self.value is not None
        return fixed_value(self.value, element_type.numpy, shape, "--input", self.name)


def _parse_dim(text: str, spec: str) -> int | None | DimRange:
    text = text.strip()
    if text in ("?", "-1"):
        return None
    ranged = _RANGE.match(text)
    if ranged:
        lo = int(ranged["lo"] or 0)
        hi = int(ranged["hi"]) if ranged["hi"] else None
        if hi is not None and hi < lo:
            raise UsageError(f"bad --input {spec!r}: empty dimension range {text}")
        return (lo, hi)
    try:
        value = int(text)
    except ValueError:
        raise UsageError(
            f"bad --input {spec!r}: dimension {text!r} is not an integer, a range like 1..8, ? or -1"
        ) from None
    if value < 0:
        raise UsageError(f"bad --input {spec!r}: negative dimension {value}")
    return value
