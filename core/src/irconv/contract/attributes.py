"""Typed reads of a framework node's attributes: ``ctx.attrs.int("axis", 1)``.

Every front end's loader puts an adapter on the source op that answers ``get(name)`` with a
plain Python value (ONNX AttributeProtos, TF AttrValues, Caffe parameter fields, MXNet
attribute strings, FX node arguments). ``AttributeReader`` turns those values into the type
the extractor asks for, the same way for every framework, and reports a missing or mistyped
attribute in one shape: the node, the attribute, the expected type and what was found.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from irconv.errors import NAME_LIMIT, ConversionError, quoted, shortened
from irconv.ops.source import SourceAttributes

T = TypeVar("T")

_MISSING: Any = object()
_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})


class AttributeValueError(ConversionError):
    """An attribute is missing, has the wrong type, or a value the conversion cannot express."""


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return value if isinstance(value, str) else None


def _as_int(value: Any) -> int:
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iub":
        return int(value.reshape(-1)[0])
    text = _text(value)
    if text is not None:
        return int(text.strip())
    raise TypeError


def _as_float(value: Any) -> float:
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        return float(value.reshape(-1)[0])
    text = _text(value)
    if text is not None:
        return float(text.strip())
    raise TypeError


def _as_bool(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and int(value) in (0, 1):
        return bool(value)
    text = _text(value)
    if text is not None:
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    raise TypeError


def _as_str(value: Any) -> str:
    text = _text(value)
    if text is None:
        raise TypeError
    return text


def _as_items(value: Any, length: int | None) -> list[Any]:
    """A list attribute given as a list, tuple or 1-D array; a single value is repeated to
    ``length`` (a 2-D window given as one number) or taken as a one-item list."""
    if isinstance(value, np.ndarray):
        if value.ndim > 1:
            raise TypeError
        return list(value.reshape(-1))
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError
    return [value] * (length if length is not None else 1)


def _kind(value: Any) -> str:
    """How a found value is described in an error: ``'abc' (str)``."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


class AttributeReader:
    """Typed access to one framework node's attributes.

    Each reader takes the attribute's name and an optional default. Without a default a
    missing attribute is an ``AttributeValueError``; a value that cannot be read as the asked
    type always is. ``None`` stored in the framework's attribute counts as missing (MXNet and
    PyTorch write ``None`` for "not given").
    """

    __slots__ = ("_attributes", "_where")

    def __init__(self, attributes: SourceAttributes | None, where: str) -> None:
        self._attributes = attributes
        self._where = where

    # ------------------------------------------------------------ presence
    def __contains__(self, name: object) -> bool:
        return self._attributes is not None and name in self._attributes and self._raw(str(name)) is not None

    def names(self) -> list[str]:
        return [] if self._attributes is None else list(self._attributes.names())

    def _raw(self, name: str) -> Any:
        return None if self._attributes is None else self._attributes.get(name)

    # ------------------------------------------------------------ errors
    def error(self, name: str, expected: str, found: str) -> AttributeValueError:
        """The one error shape: node, attribute, what was expected, what was found."""
        return AttributeValueError(
            f"{self._where}: attribute {quoted(name)}: expected {expected}, found {shortened(found)}"
        )

    def bad(self, name: str, value: Any, why: str) -> AttributeValueError:
        """An attribute whose value is valid for the framework but cannot be converted."""
        return AttributeValueError(
            f"{self._where}: attribute {shortened(name, NAME_LIMIT)}={shortened(repr(value))} is not supported: {why}"
        )

    # ------------------------------------------------------------ typed readers
    def _read(self, name: str, default: Any, expected: str, convert: Callable[[Any], T]) -> T:
        raw = self._raw(name)
        if raw is None:
            if default is _MISSING:
                raise self.error(name, expected, "nothing (the attribute is required)")
            return cast(T, default)
        try:
            return convert(raw)
        except (TypeError, ValueError, OverflowError):
            raise self.error(name, expected, _kind(raw)) from None

    def get(self, name: str, default: Any = None) -> Any:
        """The attribute as the front end's adapter gives it, untyped; ``default`` when absent."""
        raw = self._raw(name)
        return default if raw is None else raw

    def required(self, name: str) -> Any:
        """The attribute as the adapter gives it; absent is an error."""
        return self._read(name, _MISSING, "a value", lambda v: v)

    def int(self, name: str, default: Any = _MISSING) -> builtins.int:
        return self._read(name, default, "an integer", _as_int)

    def float(self, name: str, default: Any = _MISSING) -> builtins.float:
        return self._read(name, default, "a number", _as_float)

    def bool(self, name: str, default: Any = _MISSING) -> builtins.bool:
        return self._read(name, default, "a boolean", _as_bool)

    def str(self, name: builtins.str, default: Any = _MISSING) -> builtins.str:
        return self._read(name, default, "a string", _as_str)

    def choice(self, name: builtins.str, allowed: Sequence[builtins.str], default: Any = _MISSING) -> builtins.str:
        """A string attribute restricted to ``allowed``."""
        value = self.str(name, default)
        if value not in allowed:
            raise self.error(name, "one of " + ", ".join(repr(a) for a in allowed), repr(value))
        return value

    def ints(self, name: builtins.str, default: Any = _MISSING, *, length: builtins.int | None = None) -> list[builtins.int]:
        """A list of integers; a single number counts as a one-item list (``length`` items when
        given). A list of the wrong length, with ``length`` given, is an error."""
        values = self._read(name, default, "a list of integers",
                            lambda v: [_as_int(x) for x in _as_items(v, length)])
        checked: list[builtins.int] = self._check_length(name, values, length)
        return checked

    def floats(self, name: builtins.str, default: Any = _MISSING, *, length: builtins.int | None = None) -> list[builtins.float]:
        values = self._read(name, default, "a list of numbers",
                            lambda v: [_as_float(x) for x in _as_items(v, length)])
        checked: list[builtins.float] = self._check_length(name, values, length)
        return checked

    def strs(self, name: builtins.str, default: Any = _MISSING) -> list[builtins.str]:
        return self._read(name, default, "a list of strings", lambda v: [_as_str(x) for x in _as_items(v, None)])

    def optional_ints(self, name: builtins.str, default: Any = _MISSING) -> list[builtins.int | None]:
        """A list whose items may be None (a slice's open ends)."""
        return self._read(name, default, "a list of integers or None",
                          lambda v: [None if x is None else _as_int(x) for x in _as_items(v, None)])

    def tensor(self, name: builtins.str, default: Any = _MISSING) -> np.ndarray:
        """A tensor-valued attribute as a NumPy array."""

        def convert(value: Any) -> np.ndarray:
            if isinstance(value, np.ndarray):
                return value
            if isinstance(value, (list, tuple, builtins.int, builtins.float, np.generic)):
                return np.asarray(value)
            raise TypeError

        return self._read(name, default, "a tensor", convert)

    def graph(self, name: builtins.str, default: Any = _MISSING) -> Any:
        """A sub-graph attribute (an If branch, a Loop body) in the framework's own form."""
        return self._read(name, default, "a graph", lambda v: v)

    def _check_length(self, name: builtins.str, values: Any, length: builtins.int | None) -> Any:
        if length is not None and values is not None and len(values) != length:
            raise self.error(name, f"{length} values", _kind(values))
        return values
