"""Typed, namespaced graph metadata: a plugin declares a ``MetaKey`` and reads back its type."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, overload

T = TypeVar("T")

_KEY = re.compile(r"^[a-z0-9_]+\.[a-z0-9_.]+$")


@dataclass(frozen=True, eq=False)
class MetaKey(Generic[T]):
    """A model-level fact a plugin carries to later phases, e.g.
    ``WRAPPED_RANK = MetaKey("layout.wrapped_rank", int)``.

    ``name`` is namespaced by the plugin; ``default`` builds the value ``setdefault`` stores.
    Keys compare by identity: two plugins cannot read each other's entries by accident.
    """

    name: str
    type: type | None = None
    default: Callable[[], T] | None = None
    doc: str = ""

    def __post_init__(self) -> None:
        if not _KEY.match(self.name):
            raise ValueError(f"graph meta key {self.name!r} must be namespaced, e.g. 'onnx.opsets'")


class GraphMeta:
    """Model-level facts keyed by ``MetaKey`` objects (no bare string keys)."""

    def __init__(self) -> None:
        self._values: dict[MetaKey[Any], Any] = {}

    @overload
    def get(self, key: MetaKey[T]) -> T | None: ...
    @overload
    def get(self, key: MetaKey[T], default: T) -> T: ...
    def get(self, key: MetaKey[T], default: T | None = None) -> T | None:
        return cast("T | None", self._values.get(_checked(key), default))

    def __getitem__(self, key: MetaKey[T]) -> T:
        return cast(T, self._values[_checked(key)])

    def __setitem__(self, key: MetaKey[T], value: T) -> None:
        if key.type is not None and not isinstance(value, key.type):
            raise TypeError(f"graph meta {key.name}: expected {key.type.__name__}, got {type(value).__name__}")
        self._values[_checked(key)] = value

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def setdefault(self, key: MetaKey[T]) -> T:
        if key not in self._values:
            if key.default is None:
                raise KeyError(f"graph meta {key.name} has no default")
            self[key] = key.default()
        return cast(T, self._values[key])

    def pop(self, key: MetaKey[T], default: T | None = None) -> T | None:
        return cast("T | None", self._values.pop(_checked(key), default))

    def names(self) -> list[str]:
        return sorted(key.name for key in self._values)


def _checked(key: Any) -> MetaKey[Any]:
    if not isinstance(key, MetaKey):
        raise TypeError(f"graph meta keys are MetaKey objects, not {type(key).__name__} ({key!r})")
    return key
