"""A schema-free reader of protobuf text format, for layer parameters our schema lacks.

Custom Caffe layers come with parameter blocks (``my_layer_param { ... }``) that no
public caffe.proto declares. This reader finds each field's name, value and byte span
without a schema, so the loader can lift those blocks out of the text (keeping line
numbers), parse the rest strictly, and hand the lifted values to custom-layer routes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from irconv.errors import quoted

_TOKEN = re.compile(
    r"""\s+|\#[^\n]*|(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|(?P<punct>[{}\[\]:<>,;])|(?P<word>[^\s{}\[\]:<>,;"'#]+)"""
)


@dataclass
class TextField:
    """One field: a scalar (text as written, strings unquoted) or a nested message."""

    name: str
    start: int
    end: int
    value: str | None = None
    fields: list[TextField] = field(default_factory=list)

    def to_python(self) -> object:
        if self.value is not None:
            return self.value
        merged: dict[str, object] = {}
        for child in self.fields:
            value = child.to_python()
            if child.name in merged:
                previous = merged[child.name]
                merged[child.name] = (previous if isinstance(previous, list) else [previous]) + [value]
            else:
                merged[child.name] = value
        return merged


class TextFormatError(ValueError):
    pass


def parse_fields(text: str) -> list[TextField]:
    tokens = [(str(m.lastgroup), m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text) if m.lastgroup]
    pos, fields = _fields(tokens, 0, closing=None)
    return fields


def _fields(tokens: list[tuple[str, str, int, int]], pos: int, closing: str | None) -> tuple[int, list[TextField]]:
    fields: list[TextField] = []
    while pos < len(tokens):
        kind, text, start, _ = tokens[pos]
        if closing is not None and text == closing:
            return pos, fields
        if text in (",", ";"):
            pos += 1
            continue
        if kind != "word":
            raise TextFormatError(f"expected a field name at offset {start}, found {quoted(text)}")
        pos += 1
        if pos < len(tokens) and tokens[pos][1] == ":":
            pos += 1
        if pos >= len(tokens):
            raise TextFormatError(f"field {quoted(text)} has no value")
        opener = tokens[pos][1]
        if opener in ("{", "<"):
            pos, children = _fields(tokens, pos + 1, "}" if opener == "{" else ">")
            fields.append(TextField(text, start, tokens[pos][3], fields=children))
            pos += 1
        elif opener == "[":
            pos += 1
            while pos < len(tokens) and tokens[pos][1] != "]":
                if tokens[pos][1] != ",":
                    fields.append(TextField(text, start, tokens[pos][3], value=_scalar(tokens[pos])))
                pos += 1
            pos += 1
        else:
            fields.append(TextField(text, start, tokens[pos][3], value=_scalar(tokens[pos])))
            pos += 1
    if closing is not None:
        raise TextFormatError(f"missing {quoted(closing)}")
    return pos, fields


def _scalar(token: tuple[str, str, int, int]) -> str:
    kind, text, start, _ = token
    if kind == "str":
        return text[1:-1].encode().decode("unicode_escape")
    if kind != "word":
        raise TextFormatError(f"expected a value at offset {start}, found {quoted(text)}")
    return text
