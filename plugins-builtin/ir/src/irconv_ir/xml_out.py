"""A line-oriented XML stream: each element is written as soon as it is known."""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO

from irconv_ir.xml_text import quote


class XmlStream:
    """Writes tab-indented XML lines to a binary file (UTF-8), nothing kept in memory."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self.depth = 0

    def line(self, text: str) -> None:
        self._stream.write(("\t" * self.depth + text + "\n").encode("utf-8"))

    def open(self, tag: str, attributes: Iterable[tuple[str, str]] = ()) -> None:
        self.line(f"<{tag}{_attrs(attributes)}>")
        self.depth += 1

    def close(self, tag: str) -> None:
        self.depth -= 1
        self.line(f"</{tag}>")

    def empty(self, tag: str, attributes: Iterable[tuple[str, str]] = ()) -> None:
        self.line(f"<{tag}{_attrs(attributes)} />")

    def text(self, tag: str, value: str) -> None:
        self.line(f"<{tag}>{value}</{tag}>")


def _attrs(attributes: Iterable[tuple[str, str]]) -> str:
    return "".join(f" {name}={quote(value)}" for name, value in attributes)
