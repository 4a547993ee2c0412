"""A 5,000-character name in a model file, through the error paths of several front ends: the
message shows it cut, with its length and its end, on one short line, and nothing is written.

The command line cuts any error line at 2,000 characters as a last guard; these messages must
stay well under it because each front end quotes the name through ``irconv.errors.quoted``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from irconv.cli.main import main

#: A name from the file: 5,000 characters whose end differs from its start.
LONG = "n" * 4990 + "_tail_name"


def _onnx_reading_an_unknown_tensor(folder: Path) -> list[str]:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", [LONG], ["y"], name="relu")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]), str(folder / "m.onnx"))
    return [str(folder / "m.onnx")]


def _onnx_output_no_node_makes(folder: Path) -> list[str]:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info(LONG, TensorProto.FLOAT, None)],
    )
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]), str(folder / "m.onnx"))
    return [str(folder / "m.onnx")]


def _tf_text_graph_reading_an_unknown_node(folder: Path) -> list[str]:
    pytest.importorskip("irconv_tf")
    (folder / "m.pbtxt").write_text(
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
        f'node {{ name: "{LONG}" op: "Identity" input: "other_{LONG}" attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}\n'
    )
    return [str(folder / "m.pbtxt")]


def _caffe(layer_text: str) -> Callable[[Path], list[str]]:
    def write(folder: Path) -> list[str]:
        pytest.importorskip("irconv_caffe")
        from irconv_caffe.testing import write_random_caffemodel

        head = 'name: "n"\ninput: "data"\ninput_shape { dim: 1 dim: 4 }\n'
        (folder / "ok.prototxt").write_text(head + 'layer { name: "r" type: "ReLU" bottom: "data" top: "y" }\n')
        write_random_caffemodel(folder / "ok.prototxt", folder / "w.caffemodel", seed=1)
        (folder / "m.prototxt").write_text(head + layer_text)
        return [str(folder / "m.prototxt"), "--weights", str(folder / "w.caffemodel")]

    return write


CASES = {
    "onnx-unknown-tensor": _onnx_reading_an_unknown_tensor,
    "onnx-output": _onnx_output_no_node_makes,
    "tf-unknown-node": _tf_text_graph_reading_an_unknown_node,
    "caffe-unknown-blob": _caffe(f'layer {{ name: "{LONG}" type: "ReLU" bottom: "other_{LONG}" top: "y" }}\n'),
    "caffe-unknown-field": _caffe(f'layer {{ name: "{LONG}" type: "ReLU" bottom: "data" top: "y" f{LONG}: 1 }}\n'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_5000_character_name_is_quoted_cut(case: str, tmp_path: Path, capsys) -> None:
    args = CASES[case](tmp_path)
    out = tmp_path / "out"
    assert main(["convert", *args, "-o", str(out / "m.xml")]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("irconv: error: ") and len(line) < 1000, line
    assert "characters)" in line and "_tail_name'" in line, line
    assert not out.exists()
