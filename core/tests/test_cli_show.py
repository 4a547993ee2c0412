"""``irconv show`` in the core: the graph document and the renderer lookup (toy plugins)."""

import json

import pytest
from core_toy_plugin import ToyPlugin
from irconv.cli.graphdoc import document, graph_entry
from irconv.cli.main import main
from irconv.contract.records import Renderer
from irconv.pipeline import ConversionOptions, convert
from irconv.plugins import hookimpl
from toy_cli import use_toy_host

RENDERED = []


class ToyRenderer:
    @hookimpl
    def render_graph(self):
        return [
            Renderer("txt", lambda doc, path: (RENDERED.append(doc), path.write_text("drawn"))),
            Renderer("never", lambda doc, path: None, available=lambda: "install the never-tool"),
        ]


@pytest.fixture
def toy_cli(monkeypatch):
    """The CLI's plugin host: the toy plugin and this file's own."""
    use_toy_host(monkeypatch, (ToyRenderer(), "toyr"))
    RENDERED.clear()


def toy_model(tmp_path):
    path = tmp_path / "m.toy"
    path.write_text("input x 1,4\nop r MyRelu x\nop d Double r\noutput y d\n")
    return path


def test_graph_entry_lists_nodes_edges_shapes_and_attributes(tmp_path, plugin_host, register_plugin):
    register_plugin(ToyPlugin(), "toy", "irconv-toy")
    graph = convert(toy_model(tmp_path), ConversionOptions(), plugin_host)
    entry = graph_entry(graph, "IR", "toy")
    by_name = {n["name"]: n for n in entry["nodes"]}
    assert set(by_name) == {"x", "r", "d", "y/sink"}
    relu, add = by_name["r"], by_name["d"]
    assert relu["type"] == "ReLU" and relu["version"] == "opset1"
    assert relu["outputs"] == [{"shape": "[1,4]", "type": "f32", "names": ["r"]}]
    assert add["inputs"] == [[relu["id"], 0], [relu["id"], 0]]
    assert by_name["x"]["attributes"]["shape"]
    assert [n["id"] for n in entry["nodes"]] == list(range(4))
    json.dumps(entry)  # plain data


def test_document_marks_what_conversion_added_and_removed():
    def node(i, name, type_, origin=""):
        return {"id": i, "name": name, "type": type_, "origin": origin, "status": "", "inputs": [], "outputs": []}

    ir = {
        "label": "IR",
        "nodes": [node(0, "conv", "Convolution"), node(1, "conv/add", "Add", origin="conv"), node(2, "new", "Swish")],
    }
    source = {"label": "source", "nodes": [node(0, "conv", "Conv"), node(1, "bn", "BatchNormalization")]}
    doc = document("m", [ir, source], [{"id": "fuse.x", "changed": True}])
    assert [n["status"] for n in ir["nodes"]] == ["", "", "added"]
    assert [n["status"] for n in source["nodes"]] == ["", "removed"]
    assert doc["version"] == 1 and doc["transforms"][0]["id"] == "fuse.x"


def test_show_converts_and_renders(tmp_path, toy_cli, capsys):
    out = tmp_path / "pic.txt"
    assert main(["show", str(toy_model(tmp_path)), "--format", "txt", "-o", str(out)]) == 0
    assert out.read_text() == "drawn"
    (doc,) = RENDERED
    assert [g["label"] for g in doc["graphs"]] == ["IR"]
    assert "ReLU" in {n["type"] for n in doc["graphs"][0]["nodes"]}
    assert "wrote" in capsys.readouterr().out


def test_show_source_and_diff(tmp_path, toy_cli):
    model = toy_model(tmp_path)
    assert main(["show", str(model), "--format", "txt", "--source", "-o", str(tmp_path / "a.txt")]) == 0
    assert {n["type"] for n in RENDERED[-1]["graphs"][0]["nodes"]} >= {"MyRelu", "Double"}
    assert main(["show", str(model), "--format", "json", "--diff", "-o", str(tmp_path / "d.json")]) == 0
    doc = json.loads((tmp_path / "d.json").read_text())
    assert [g["label"] for g in doc["graphs"]] == ["IR", "source"]
    source_types = {n["type"] for n in doc["graphs"][1]["nodes"]}
    assert "Double" in source_types


def test_show_names_what_to_install(tmp_path, toy_cli, capsys):
    assert main(["show", str(toy_model(tmp_path)), "--format", "png"]) == 1
    err = capsys.readouterr().err
    assert "no renderer for format 'png'" in err and "pip install irconv-viz" in err
    assert main(["show", str(toy_model(tmp_path)), "--format", "never"]) == 1
    assert "install the never-tool" in capsys.readouterr().err


def test_narrow_float_and_4bit_constants_show_their_values_and_ir_types():
    """bf16/f8/4-bit constants are held as codes; the viewer shows their values and IR types."""
    import numpy as np
    from irconv import Const, narrow_float
    from irconv.graph import Graph
    from irconv.types import ElementType

    graph = Graph("consts")
    held = {
        "bf16": narrow_float.from_float(np.array([1.0, -2.5, 0.3], np.float32), ElementType.bf16),
        "e4m3": narrow_float.from_float(np.array([0.5, 448.0]), ElementType.f8e4m3),
        "nf4": narrow_float.from_bits([0, 7, 15], ElementType.nf4),
        "u4": np.array([3, 15], np.uint8).view(ElementType.u4.numpy),
    }
    for name, value in held.items():
        graph.add_node(Const(value), name)
    by_name = {n["name"]: n["attributes"] for n in graph_entry(graph, "IR", "ir")["nodes"]}
    assert by_name["bf16"] == {"shape": "[3]", "element_type": "bf16", "value": "[1.0, -2.5, 0.30078125]"}
    assert by_name["e4m3"]["value"] == "[0.5, 448.0]" and by_name["e4m3"]["element_type"] == "f8e4m3"
    assert by_name["nf4"]["value"] == "[-1.0, 0.0, 1.0]" and by_name["nf4"]["element_type"] == "nf4"
    assert by_name["u4"]["value"] == "[3, 15]" and by_name["u4"]["element_type"] == "u4"
