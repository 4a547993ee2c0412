"""IR attribute strings back into the typed fields of op dataclasses."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Sequence
from typing import Any

import numpy as np
from irconv.errors import quoted
from irconv.ops import Op
from irconv.types import DimRange, ElementType, MaybeShape


def parse_shape(text: str) -> MaybeShape:
    """``1,3,?,-1`` -> (1, 3, None, None); ``...`` -> None; ``""`` -> () (a scalar).

    Dimension ranges (``1..8``) are dynamic here; ``parse_bounds`` gives their bounds.
    """
    text = text.strip()
    if text == "...":
        return None
    if text in ("", "[]"):
        return ()
    return tuple(_parse_dim(part) for part in text.strip("[]").split(","))


def parse_bounds(text: str) -> tuple[DimRange | None, ...] | None:
    """The bounds of ranged dimensions in a shape attribute (``1,2..8,?`` -> (None, (2, 8), None)),
    or None when no dimension is a range."""
    parts = [part.strip() for part in text.strip().strip("[]").split(",")] if ".." in text else []
    if not parts:
        return None
    bounds: list[DimRange | None] = []
    for part in parts:
        if ".." not in part:
            bounds.append(None)
            continue
        low, _, high = part.partition("..")
        upper = int(high) if high.strip() not in ("", "-1") else None
        bounds.append((int(low) if low.strip() else 0, upper))
    return tuple(bounds)


def _parse_dim(text: str) -> int | None:
    text = text.strip()
    if text in ("?", "-1") or ".." in text:
        return None
    value = int(text)
    if value < 0:
        raise ValueError(f"negative dimension {value}")
    return value


def ir_element_type(text: str) -> ElementType:
    """The IR's own spelling only (``u4`` is a 4-bit type here, not NumPy's ``uint32``)."""
    if text not in ElementType.__members__:
        raise ValueError(f"unknown element type {quoted(text)}")
    return ElementType[text]


def field_types(op_class: type[Op]) -> dict[str, tuple[str, Any]]:
    """IR attribute name -> (field name, resolved type) for every emitted field."""
    hints = typing.get_type_hints(op_class)
    result: dict[str, tuple[str, Any]] = {}
    for f in dataclasses.fields(op_class):
        if f.metadata.get("emit", True):
            result[f.metadata.get("ir") or f.name] = (f.name, hints.get(f.name, str))
    return result


def build_op(op_class: type[Op], data: dict[str, str], fields: dict[str, tuple[str, Any]] | None = None) -> Op:
    """An instance of ``op_class`` with its fields parsed from IR ``<data>`` attributes.

    Attributes missing from the IR keep the field's default (the runtime does the same);
    attributes the class does not declare are ignored. ``fields`` is ``field_types(op_class)``
    when the caller keeps it (type hints are slow to resolve for every node).
    """
    fields = fields if fields is not None else field_types(op_class)
    values: dict[str, Any] = {}
    for ir_name, text in data.items():
        entry = fields.get(ir_name)
        if entry is None:
            continue
        name, hint = entry
        try:
            values[name] = parse_value(text, hint)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"attribute {ir_name}={quoted(text)}: {exc}") from None
    return op_class(**values)


def parse_value(text: str, hint: Any) -> Any:
    """Parse ``text`` as a value of the annotated type ``hint``."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if _is_shape(hint):
            return parse_shape(text)
        if type(None) in args and text.strip() in ("", "?", "none", "None"):
            return None
        errors = []
        for option in options:
            try:
                return parse_value(text, option)
            except (ValueError, TypeError) as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors) or f"cannot parse {quoted(text)}")
    if origin in (tuple, list, Sequence, typing.Sequence) or hint in (tuple, list):
        item = args[0] if args else str
        parts = [] if text.strip() == "" else text.split(",")
        items = [parse_value(p.strip(), item) for p in parts]
        return list(items) if origin is list or hint is list else tuple(items)
    if hint is bool:
        lowered = text.strip().lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise ValueError(f"{quoted(text)} is not a boolean")
    if hint is int:
        return int(text.strip())
    if hint is float:
        return float(text.strip())
    if hint is str or hint is Any:
        return text
    if hint is ElementType:
        return ir_element_type(text.strip())
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _parse_enum(text, hint)
    if hint is np.ndarray:
        return np.array([float(p) for p in text.split(",") if p.strip()], dtype=np.float32)
    return text


def _parse_enum(text: str, enum_class: type[enum.Enum]) -> enum.Enum:
    for member in enum_class:
        if str(member.value) == text:
            return member
    lowered = text.strip().lower()
    for member in enum_class:
        if str(member.value).lower() == lowered or member.name.lower() == lowered:
            return member
    allowed = ", ".join(str(m.value) for m in enum_class)
    raise ValueError(f"{quoted(text)} is not one of {allowed}")


def _is_shape(hint: Any) -> bool:
    """``tuple[int | None, ...] | None``: a shape, spelled with ``?`` for dynamic dims."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if len(args) != 1 or typing.get_origin(args[0]) is not tuple:
        return False
    inner = typing.get_args(args[0])
    return len(inner) == 2 and inner[1] is Ellipsis and type(None) in typing.get_args(inner[0])
