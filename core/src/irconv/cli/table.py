"""Plain-text tables for the listing commands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)).rstrip() for row in cells]
    return "\n".join(lines)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    print(format_table(headers, rows))
