"""irconv-viz renderers on hand-made graph documents (no front end, no browser needed)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from irconv.errors import UserError
from irconv_viz import dot
from irconv_viz.html import page, render_html
from irconv_viz.plugin import render_graph


def doc(name: str = "conv") -> dict:
    nodes = [
        {
            "id": 0,
            "name": "x",
            "type": "Parameter",
            "version": "opset1",
            "attributes": {"shape": "1,3"},
            "inputs": [],
            "outputs": [{"shape": "[1,3]", "type": "f32", "names": ["x"]}],
            "origin": "",
            "status": "",
        },
        {
            "id": 1,
            "name": name,
            "type": "ReLU",
            "version": "opset1",
            "attributes": {},
            "inputs": [[0, 0]],
            "outputs": [{"shape": "[1,3]", "type": "f32", "names": []}],
            "origin": "",
            "status": "added",
        },
    ]
    return {
        "version": 1,
        "title": "t<1>",
        "graphs": [{"label": "IR", "framework": "onnx", "nodes": nodes}],
        "transforms": [],
    }


def test_page_is_self_contained_and_embeds_the_document():
    html = page(doc())
    assert "{{" not in html and "<title>t&lt;1&gt; - irconv show</title>" in html
    data = re.search(r'<script id="graph-data" type="application/json">(.*?)</script>', html, re.S)[1]
    assert json.loads(data) == doc()
    assert "src=" not in html and "href=" not in html  # no external scripts or styles


def test_a_node_name_cannot_close_the_script_element():
    html = page(doc(name="</script><b>x"))
    data = re.search(r'<script id="graph-data" type="application/json">(.*?)</script>\n', html, re.S)[1]
    assert "</script>" not in data
    assert json.loads(data)["graphs"][0]["nodes"][1]["name"] == "</script><b>x"


def test_render_html_writes_the_page(tmp_path):
    render_html(doc(), tmp_path / "p.html")
    assert (tmp_path / "p.html").read_text().startswith("<!DOCTYPE html>")


def test_dot_text_has_a_box_per_node_and_the_edges():
    text = dot.to_dot(doc())
    assert text.count("[label=") == 2
    assert "g0n0 -> g0n1;" in text
    assert "#2e9d4b" in text  # added nodes are green


def test_svg_without_graphviz_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "Graphviz" in dot.graphviz_missing()
    with pytest.raises(UserError, match="Graphviz"):
        dot.render_svg(doc(), tmp_path / "g.svg")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_svg_through_graphviz(tmp_path):
    dot.render_svg(doc(), tmp_path / "g.svg")
    svg = (tmp_path / "g.svg").read_text()
    assert "<svg" in svg and "ReLU" in svg


def test_plugin_declares_html_and_svg():
    formats = {r.format: r for r in render_graph()}
    assert set(formats) == {"html", "svg"}
    assert formats["html"].unavailable_reason() is None
