"""Attribute coercion for the opB op families (private).

Front ends often have enum attributes as text (``"same_upper"``, ``"i32"``) and lists, arrays
or single numbers where the declaration says tuple; ``CoercedAttrs.__post_init__`` turns them
into the declared types so ``infer``/``evaluate`` can rely on them, and rejects misspelt enum values with a
message naming the op, the attribute and the accepted spellings.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import typing

import numpy as np
from irconv.errors import ConversionError, shortened

#: ``choices`` of element-type attributes (``attr(..., choices=...)``), as the specification lists them.
INDEX_TYPES = ("i32", "i64")
NUMERIC_TYPES = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
#: what Convert writes: the numeric types, boolean, 8-bit floats and 4-bit integers
CONVERT_TYPES = ("boolean", *NUMERIC_TYPES, "f8e4m3", "f8e5m2", "i4", "u4")


@functools.cache
def _enum_fields(cls: type) -> tuple[tuple[str, type[enum.Enum]], ...]:
    hints = typing.get_type_hints(cls)
    found = []
    for f in dataclasses.fields(cls):
        hint = hints.get(f.name)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            found.append((f.name, hint))
    return tuple(found)


@functools.cache
def _tuple_fields(cls: type) -> tuple[str, ...]:
    hints = typing.get_type_hints(cls)
    return tuple(f.name for f in dataclasses.fields(cls) if typing.get_origin(hints.get(f.name)) is tuple)


class CoercedAttrs:
    """Mixin for op dataclasses: text enum values and list attributes take their declared types."""

    def __post_init__(self) -> None:
        cls: type = type(self)
        for name, kind in _enum_fields(cls):
            value = getattr(self, name)
            if isinstance(value, kind):
                continue
            try:
                setattr(self, name, kind(value))
            except ValueError:
                allowed = ", ".join(str(m.value) for m in kind)
                raise ConversionError(
                    f"{getattr(cls, 'type', cls.__name__)}: attribute {name}={shortened(repr(value))} is not one of: {allowed}"
                ) from None
        for name in _tuple_fields(cls):
            value = getattr(self, name)
            if isinstance(value, (list, np.ndarray)):
                setattr(self, name, tuple(np.asarray(value).tolist()))
            elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
                setattr(self, name, (value.item() if isinstance(value, np.generic) else value,))
