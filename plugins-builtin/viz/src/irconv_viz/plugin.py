"""Hook implementations of irconv-viz: the ``html`` and ``svg`` renderers."""

from __future__ import annotations

from collections.abc import Sequence

from irconv.contract.records import Renderer
from irconv.plugins import hookimpl


@hookimpl
def render_graph() -> Sequence[Renderer]:
    from irconv_viz.dot import graphviz_missing, render_svg
    from irconv_viz.html import render_html

    return [
        Renderer("html", render_html, suffix=".html", description="self-contained interactive page"),
        Renderer("svg", render_svg, suffix=".svg", available=graphviz_missing, description="SVG through Graphviz"),
    ]
