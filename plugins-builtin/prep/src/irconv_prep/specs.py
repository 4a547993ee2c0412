"""The value syntax of the preparation options, as Model Optimizer users write it.

- per-input numbers: ``data[123.7,116.3,103.5]``, several inputs ``a[1,2,3],b[4,5,6]``, or
  ``[1,2,3]`` for the model's only input (commas or spaces between the numbers);
- layouts: ``nchw``, ``data(nchw)``, ``data(nhwc->nchw)``, ``a(nchw),b(nc)``; letters per dim
  (``?`` for a dim without a meaning) or ``[N,C,H,W]``;
- frozen inputs: ``name[value]`` / ``name[v1,v2]`` or ``name->value`` / ``name->[v1 v2]``.

Every parser raises ``ValueError`` with a message naming the bad part; the options turn it
into one ``UserError``. Python callers may pass the parsed forms directly (a mapping of input
name to numbers, a plain list for the only input).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: An input name of "" means "the model's only input".
PerInput = dict[str, tuple[float, ...]]

_NAMED_VALUES = re.compile(r"^(?P<name>[^\[\]]*)\[(?P<values>[^\[\]]*)\]$")
_NAMED_LAYOUT = re.compile(r"^(?P<name>[^()]*)\((?P<layout>[^()]*)\)$")
_LETTERS = re.compile(r"^[A-Za-z?]+$")


def split_top_level(text: str) -> list[str]:
    """Split on commas outside ``[]`` and ``()``."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    items.append("".join(current).strip())
    return [item for item in items if item]


def _numbers(text: str, what: str) -> tuple[float, ...]:
    parts = [p for p in re.split(r"[,\s]+", text.strip()) if p]
    if not parts:
        raise ValueError(f"{what}: no values")
    try:
        return tuple(float(p) for p in parts)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a list of numbers") from None


def parse_per_input(value: object) -> PerInput:
    """``data[1,2,3],info[4]`` (or a mapping, or a plain list for the only input) -> values."""
    if isinstance(value, Mapping):
        return {str(k): _as_floats(v, str(k)) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return {"": _as_floats(value, "values")}
    if not isinstance(value, str):
        raise ValueError(f"expected name[v1,v2,...], got {value!r}")
    result: PerInput = {}
    for item in split_top_level(value):
        found = _NAMED_VALUES.match(item)
        if not found:
            raise ValueError(f"{item!r} is not name[v1,v2,...] (or [v1,v2,...] for the only input)")
        name = found["name"].strip()
        if name in result:
            raise ValueError(f"input {name or '(unnamed)'} is given twice")
        result[name] = _numbers(found["values"], item)
    if "" in result and len(result) > 1:
        raise ValueError("values without an input name can only be given for a single input")
    return result


def _as_floats(value: object, what: str) -> tuple[float, ...]:
    if isinstance(value, str):
        return _numbers(value.strip("[]"), what)
    if isinstance(value, (int, float)):
        return (float(value),)
    if isinstance(value, Sequence):
        return tuple(float(v) for v in value)
    raise ValueError(f"{what}: {value!r} is not a list of numbers")


@dataclass(frozen=True)
class Layout:
    """One letter per dim (``?``: no meaning), e.g. ``NCHW``."""

    letters: str

    @classmethod
    def parse(cls, text: str) -> Layout:
        body = text.strip()
        if body.startswith("[") and body.endswith("]"):
            body = "".join(p.strip() for p in body[1:-1].split(","))
        if not _LETTERS.match(body):
            raise ValueError(f"layout {text!r}: expected one letter per dim, e.g. nchw or [N,C,H,W]")
        letters = body.upper()
        named = [c for c in letters if c != "?"]
        if len(set(named)) != len(named):
            raise ValueError(f"layout {text!r} names a dim twice")
        return cls(letters)

    @property
    def rank(self) -> int:
        return len(self.letters)

    def index(self, letter: str) -> int | None:
        at = self.letters.find(letter)
        return None if at < 0 else at

    def ir_text(self) -> str:
        """OpenVINO's spelling in runtime info: ``[N,C,H,W]``."""
        return "[" + ",".join(self.letters) + "]"

    def __str__(self) -> str:
        return self.letters.lower()


@dataclass(frozen=True)
class LayoutSpec:
    """An input's layout in the model (``source``) and the one the IR input takes (``target``)."""

    source: Layout | None = None
    target: Layout | None = None


def parse_layouts(value: object, *, allow_arrow: bool = True) -> dict[str, LayoutSpec]:
    """``nchw`` / ``data(nchw)`` / ``data(nhwc->nchw)``, comma separated, by input name."""
    if isinstance(value, Mapping):
        return {str(k): _layout_item(str(v), allow_arrow) for k, v in value.items()}
    if not isinstance(value, str):
        raise ValueError(f"expected a layout such as data(nchw), got {value!r}")
    result: dict[str, LayoutSpec] = {}
    for item in split_top_level(value):
        found = _NAMED_LAYOUT.match(item)
        name, body = (found["name"].strip(), found["layout"]) if found else ("", item)
        if name in result:
            raise ValueError(f"input {name or '(unnamed)'} is given twice")
        result[name] = _layout_item(body, allow_arrow)
    if "" in result and len(result) > 1:
        raise ValueError("a layout without an input name can only be given for a single input")
    return result


def _layout_item(body: str, allow_arrow: bool) -> LayoutSpec:
    if "->" in body:
        if not allow_arrow:
            raise ValueError(f"{body!r}: use --layout for source->target layouts")
        source_text, target_text = body.split("->", 1)
        source, target = Layout.parse(source_text), Layout.parse(target_text)
        if sorted(source.letters) != sorted(target.letters) or "?" in source.letters + target.letters:
            raise ValueError(f"{body!r}: source and target layouts must name the same dims")
        return LayoutSpec(source, target)
    layout = Layout.parse(body)
    return LayoutSpec(layout, layout)


def parse_frozen(value: object) -> dict[str, str]:
    """``name[value]`` / ``name->value`` items -> the value text, by input name."""
    if isinstance(value, Mapping):
        return {str(k): v if isinstance(v, str) else repr(v) for k, v in value.items()}
    if not isinstance(value, str):
        raise ValueError(f"expected name[value], got {value!r}")
    result: dict[str, str] = {}
    for item in split_top_level(value):
        if "->" in item:
            name, text = (part.strip() for part in item.split("->", 1))
        else:
            found = _NAMED_VALUES.match(item)
            if not found:
                raise ValueError(f"{item!r} is not name[value] or name->value")
            name, text = found["name"].strip(), found["values"]
        if not name:
            raise ValueError(f"{item!r}: name the input to freeze")
        result[name] = text.strip()
    return result
