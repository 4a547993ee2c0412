"""The ``svg`` renderer: the graph written as Graphviz DOT and laid out by ``dot -Tsvg``."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irconv.errors import UserError

_COLORS = {"added": "#2e9d4b", "removed": "#c62828", "": "#555555"}


def graphviz_missing() -> str | None:
    if shutil.which("dot") is None:
        return "Graphviz's `dot` is not on PATH: install Graphviz (apt-get install graphviz), or use --format html"
    return None


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(document: Mapping[str, Any]) -> str:
    """DOT text: one cluster per graph of the document, a box per node (type, name, shapes)."""
    lines = [
        "digraph irconv {",
        "  rankdir=TB;",
        '  node [shape=box, style="rounded", fontname="Helvetica", fontsize=10];',
    ]
    for g_index, graph in enumerate(document["graphs"]):
        lines.append(f"  subgraph cluster_{g_index} {{")
        lines.append(f"    label={_quote(graph['label'])};")
        for node in graph["nodes"]:
            shapes = " ".join(o["shape"] for o in node["outputs"])
            label = f"{node['type']}\n{node['name']}" + (f"\n{shapes}" if shapes else "")
            color = _COLORS.get(node.get("status", ""), _COLORS[""])
            lines.append(f"    g{g_index}n{node['id']} [label={_quote(label)}, color={_quote(color)}];")
            for source in node["inputs"]:
                if source is not None:
                    lines.append(f"    g{g_index}n{source[0]} -> g{g_index}n{node['id']};")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_svg(document: Mapping[str, Any], path: Path) -> None:
    missing = graphviz_missing()
    if missing:
        raise UserError(missing)
    dot = shutil.which("dot")
    assert dot is not None
    result = subprocess.run([dot, "-Tsvg", "-o", str(path)], input=to_dot(document), text=True, capture_output=True)
    if result.returncode != 0:
        raise UserError(f"Graphviz failed to draw the graph: {result.stderr.strip()[:500]}")
