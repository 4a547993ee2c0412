"""The ``html`` renderer: one self-contained page (no network access), the graph document
embedded as JSON and drawn by a small script (layered layout, search, details, collapsible
groups of nodes sharing a name scope, repeated blocks found by their op-type signature)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any


def page(document: Mapping[str, Any]) -> str:
    """The HTML text for ``document`` (see ``irconv.cli.graphdoc`` for its schema)."""
    folder = resources.files("irconv_viz")
    template = folder.joinpath("page.html").read_text(encoding="utf-8")
    data = json.dumps(document, separators=(",", ":")).replace("</", "<\\/")
    return (
        template.replace("{{title}}", escape(str(document.get("title", "graph"))))
        .replace("{{css}}", folder.joinpath("page.css").read_text(encoding="utf-8"))
        .replace("{{script}}", folder.joinpath("page.js").read_text(encoding="utf-8"))
        .replace("{{data}}", data)
    )


def render_html(document: Mapping[str, Any], path: Path) -> None:
    Path(path).write_text(page(document), encoding="utf-8")
