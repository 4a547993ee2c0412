"""MXNet attribute strings as Python values.

A symbol file stores every attribute as text, spelt the way MXNet's parameter parser
prints it: ``"(3, 3)"``, ``"[1,2]"``, ``"True"``, ``"1e-05"``, ``"None"``, ``"relu"``.
``parse_value`` turns one into a tuple, bool, int, float, None or (otherwise) the string:
the plain values extractors read typed through ``ctx.attrs`` (which also accepts the other
spellings: ``kernel="3"`` for a 1-d window, ``no_bias="1"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TRUE = {"true", "1"}
_FALSE = {"false", "0"}
_NONE = {"none", "null"}

Value = Any


def parse_value(text: str) -> Value:
    """One attribute string as a Python value (strings that are not numbers stay strings)."""
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] in "([" and stripped[-1] in ")]":
        inner = stripped[1:-1].strip()
        if not inner:
            return ()
        return tuple(parse_value(part) for part in _split_top(inner) if part.strip() != "")
    lowered = stripped.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in _NONE:
        return None
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        return float(stripped)
    except ValueError:
        pass
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "'\"":
        return stripped[1:-1]
    return stripped


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets: ``"(1, 2), (3, 4)"`` -> two parts."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_attrs(attrs: Mapping[str, str]) -> dict[str, Value]:
    """Every attribute of a node parsed (non-string values, e.g. from a hand-written
    JSON, are kept as they are). ``None`` and ``()`` are MXNet's spellings of a parameter
    left unset (``stride=()``: the default stride), so both read as not given."""
    parsed = {name: parse_value(value) if isinstance(value, str) else value for name, value in attrs.items()}
    return {name: None if value == () else value for name, value in parsed.items()}


def as_tuple(value: Value, length: int | None = None, name: str = "attribute") -> tuple[Any, ...]:
    """A tuple attribute given as a tuple, a list or a single number (repeated to ``length``)."""
    if value is None:
        return ()
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if length is not None:
        return (value,) * length
    return (value,)

