"""A line-oriented XML stream: elements are written as they become known.

Lines are gathered in a small buffer and written in blocks, so the cost per element is a
string format, not a system call; memory stays bounded by the block size.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO

from irconv_ir.xml_text import quote

#: Lines gathered before one write to the file.
BLOCK_LINES = 4096


class XmlStream:
    """Writes tab-indented XML lines to a binary file (UTF-8)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lines: list[str] = []
        self.depth = 0

    def line(self, text: str) -> None:
        self._lines.append("\t" * self.depth + text)
        if len(self._lines) >= BLOCK_LINES:
            self.flush()

    def raw_lines(self, lines: Iterable[str]) -> None:
        """Lines already indented relative to the current depth."""
        indent = "\t" * self.depth
        self._lines.extend(indent + text for text in lines)
        if len(self._lines) >= BLOCK_LINES:
            self.flush()

    def flush(self) -> None:
        if self._lines:
            self._lines.append("")
            self._stream.write("\n".join(self._lines).encode("utf-8"))
            self._lines.clear()

    def open(self, tag: str, attributes: Iterable[tuple[str, str]] = ()) -> None:
        self.line(f"<{tag}{attrs(attributes)}>")
        self.depth += 1

    def close(self, tag: str) -> None:
        self.depth -= 1
        self.line(f"</{tag}>")

    def empty(self, tag: str, attributes: Iterable[tuple[str, str]] = ()) -> None:
        self.line(f"<{tag}{attrs(attributes)} />")


def attrs(attributes: Iterable[tuple[str, str]]) -> str:
    return "".join(f" {name}={quote(value)}" for name, value in attributes)
