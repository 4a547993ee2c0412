"""How values are spelled in the IR's XML text."""

from __future__ import annotations

from irconv.types import MaybeShape

#: Characters XML 1.0 cannot hold at all, not even as references (control characters other
#: than tab and newlines, U+FFFE/U+FFFF, lone surrogates): written as ``\xNN`` text instead,
#: so a model whose names carry them still gives an IR the runtime can parse.
_UNREPRESENTABLE = [
    *(c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)),
    *range(0xD800, 0xE000),
    0xFFFE,
    0xFFFF,
]
_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\n": "&#10;",
        "\t": "&#9;",
        "\r": "&#13;",
        **{chr(c): f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in _UNREPRESENTABLE},
    }
)


def quote(text: str) -> str:
    """An XML attribute value, double-quoted and escaped."""
    return '"' + text.translate(_ESCAPES) + '"'


def join_names(names: list[str]) -> str:
    """Tensor names as the IR lists them: comma separated, a comma inside a name written ``\\,``.

    Like OpenVINO's own reader and writer, only ``\\,`` is an escape; any other backslash is
    part of the name.
    """
    return ",".join(name.replace(",", "\\,") for name in names)


def split_names(text: str) -> list[str]:
    """The inverse of :func:`join_names`."""
    names: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and text[i + 1 : i + 2] == ",":
            current.append(",")
            i += 2
            continue
        if char == ",":
            names.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        i += 1
    names.append("".join(current).strip())
    return [n for n in names if n]


def shape_text(shape: tuple[int, ...]) -> str:
    """A static shape for a Const's ``shape`` attribute (empty for a scalar)."""
    return ",".join(str(d) for d in shape)


def dims(shape: MaybeShape) -> list[int]:
    """A port's ``<dim>`` values, -1 for a dynamic dimension."""
    if shape is None:
        return []
    return [-1 if d is None else int(d) for d in shape]
