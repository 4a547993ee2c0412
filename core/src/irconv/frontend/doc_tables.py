"""A generated table kept inside a hand-written document, between two marker comments:
a front end's supported-op table in its docs page, rewritten from its extractors and
checked by a test (``render(text) == text``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def splice(document: str, begin: str, end: str, table: str) -> str:
    """``document`` with what stands between the ``begin`` and ``end`` markers replaced by
    ``table``; a document without both markers is refused (exit with its reason)."""
    if begin not in document or end not in document:
        raise SystemExit(f"the document has no {begin} ... {end} markers")
    head, rest = document.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{table}\n{end}{tail}"


def table_command(argv: Sequence[str] | None, description: str, render: Callable[[str], str],
                  what: str, regenerate: str) -> int:
    """``DOCUMENT [--check]``: rewrite the document's table (``what``) with ``render``, or with
    ``--check`` exit 1 when it is stale, saying to run ``regenerate``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("document", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    current = args.document.read_text()
    wanted = render(current)
    if args.check:
        if current != wanted:
            print(f"{args.document}: the {what} is stale; run {regenerate}", file=sys.stderr)
            return 1
        return 0
    args.document.write_text(wanted)
    return 0
