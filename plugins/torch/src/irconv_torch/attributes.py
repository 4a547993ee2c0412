"""An FX node's non-tensor arguments as attributes, and where its tensor arguments went.

The loader splits a call's arguments by the operator's schema: tensors (and symbolic
integers, lists holding them) become node inputs; plain Python values (ints, floats, lists,
strings, dtypes as element type names) are attributes read through ``ctx.attrs``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from irconv.types import ElementType

#: Where one argument went: an input index, a list of them (a tensor list, None for a None
#: element), or nothing (the argument is an attribute).
InputSlots = int | tuple[int | None, ...]

#: How torch laid a tensor argument out in memory: its strides and storage offset.
Layout = tuple[tuple[int, ...], int]


@dataclass(frozen=True, slots=True)
class FxNode:
    """What extractors know of the FX node beyond its attributes (``ctx.source_as(FxNode)``)."""

    name: str
    target: str
    #: argument name -> input slot(s), for arguments that are run-time values
    inputs: Mapping[str, InputSlots]
    #: the element type of each output (torch's own, from the traced metadata)
    output_types: tuple[ElementType | None, ...]
    #: argument name -> layout, for tensor arguments whose strides torch recorded as numbers;
    #: IR tensors have none, but an op that reads storage (``as_strided``) depends on them
    layouts: Mapping[str, Layout] = field(default_factory=dict)
    #: the rank of each tensor output as torch traced it (None for a non-tensor output)
    output_ranks: tuple[int | None, ...] = ()
    #: argument name -> its elements, for a ``SymInt[]`` argument that became one input:
    #: the literal integers, None where an element is computed (``[s0, -1, 1]``)
    list_literals: Mapping[str, tuple[int | None, ...]] = field(default_factory=dict)


class FxAttributes:
    """``SourceAttributes`` over a call's plain-valued arguments, by schema name."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def get(self, name: str, default: Any = None) -> Any:
        value = self._values.get(name, default)
        return default if value is None else value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._values.get(name) is not None

    def names(self) -> Iterable[str]:
        return [name for name, value in self._values.items() if value is not None]
