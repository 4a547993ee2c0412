"""Bad input through the CLI: one clear message, a non-zero exit code, no output written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper


def _convert(model: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "irconv", "convert", str(model), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)


def _model(node: onnx.NodeProto, inits: list | None = None) -> onnx.ModelProto:
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits or [],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def _assert_failed_cleanly(result: subprocess.CompletedProcess[str], out: Path, *needles: str) -> None:
    assert result.returncode != 0
    message = result.stderr + result.stdout
    for needle in needles:
        assert needle in message, message
    assert "Traceback" not in message
    assert not out.exists() and not out.with_suffix(".bin").exists()


def test_truncated_model(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    weights = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
    onnx.save_model(_model(helper.make_node("Conv", ["x", "w"], ["y"]), [weights]), str(path))
    path.write_bytes(path.read_bytes()[:30])
    out = tmp_path / "out.xml"
    _assert_failed_cleanly(_convert(path, out), out, "model.onnx")


def test_missing_external_data(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    weights = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
    onnx.save_model(_model(helper.make_node("Conv", ["x", "w"], ["y"]), [weights]), str(path),
                    save_as_external_data=True, location="model.weights", size_threshold=0)
    (tmp_path / "model.weights").unlink()
    out = tmp_path / "out.xml"
    _assert_failed_cleanly(_convert(path, out), out, "model.weights", "'w'")


def test_attribute_openvino_cannot_express(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="cubic_resize", mode="cubic",
                            exclude_outside=1)
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    onnx.save_model(_model(node, [scales]), str(path))
    out = tmp_path / "out.xml"
    _assert_failed_cleanly(_convert(path, out), out, "cubic_resize", "exclude_outside")


def test_attribute_outside_its_choices(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    onnx.save(_model(helper.make_node("DepthToSpace", ["x"], ["y"], name="to_space", blocksize=2, mode="ABC")),
              str(path))
    out = tmp_path / "out.xml"
    _assert_failed_cleanly(_convert(path, out), out, "to_space", "'mode'", "'DCR', 'CRD'", "'ABC'")


def test_required_attribute_missing(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    onnx.save(_model(helper.make_node("DepthToSpace", ["x"], ["y"], name="no_block")), str(path))
    out = tmp_path / "out.xml"
    _assert_failed_cleanly(_convert(path, out), out, "no_block", "'blocksize'", "required")


def test_unsupported_ops_are_listed_with_domain_and_opset(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    graph = helper.make_graph(
        [helper.make_node("ImageDecoder", ["x"], ["d"], name="decode"),
         helper.make_node("Frobnicate", ["d"], ["y"], name="frob", domain="com.example")],
        "g", [helper.make_tensor_value_info("x", TensorProto.UINT8, [64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20), helper.make_opsetid("com.example", 2)])
    onnx.save_model(model, str(path))
    out = tmp_path / "out.xml"
    _assert_failed_cleanly(_convert(path, out), out, "ImageDecoder (opset 20)",
                           "com.example::Frobnicate (opset 2)")


def test_a_node_with_more_outputs_than_its_operation(tmp_path: Path) -> None:
    """Relu given a second output that another node reads: refused by name, not an IR the
    runtime cannot read."""
    path = tmp_path / "model.onnx"
    relu = helper.make_node("Relu", ["x"], ["r", "extra"], name="relu")
    neg = helper.make_node("Neg", ["extra"], ["y"], name="neg")
    graph = helper.make_graph(
        [relu, neg], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]), str(path))
    out = tmp_path / "out.xml"
    _assert_failed_cleanly(_convert(path, out), out, "has 1 output(s), but its output 1 is read by")


def test_a_model_without_outputs_is_refused(tmp_path: Path) -> None:
    # Every operation of such a model is dead code: the IR would have no Result, one OpenVINO
    # compiles but nothing can run. The core refuses it for every format, after extraction.
    path = tmp_path / "model.onnx"
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])], [])
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]), str(path))
    out = tmp_path / "out.xml"
    _assert_failed_cleanly(_convert(path, out), out, "declares no outputs", "--output")


def test_output_flag_gives_a_model_without_outputs_one(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])], [])
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]), str(path))
    out = tmp_path / "out.xml"
    result = subprocess.run([sys.executable, "-m", "irconv", "convert", str(path), "-o", str(out), "--output", "y"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "<layer" in out.read_text() and 'type="Result"' in out.read_text()


@pytest.mark.parametrize("pads_shape", [(), (2, 4)])
def test_pads_of_another_rank_than_one_are_named(tmp_path: Path, pads_shape: tuple[int, ...]) -> None:
    # A scalar `pads` raised a TypeError inside the extractor (a plugin fault, exit 6).
    path = tmp_path / "model.onnx"
    pads = numpy_helper.from_array(np.zeros(pads_shape, np.int64), "pads")
    onnx.save_model(_model(helper.make_node("Pad", ["x", "pads"], ["y"], name="pad"), [pads]), str(path))
    out = tmp_path / "out.xml"
    result = _convert(path, out)
    assert result.returncode == 1, result.stderr
    _assert_failed_cleanly(result, out, "pads (input 1) must be 1-D", "'pad'")


def test_an_if_listing_more_than_its_condition_is_refused(tmp_path: Path) -> None:
    # The extra input was wired to the branches' first capture (the loader appends captures after
    # the node's own inputs): an IR whose If output had an unknown rank, which the CPU plugin refuses.
    path = tmp_path / "model.onnx"
    branch = {name: helper.make_graph([helper.make_node(op, ["x"], [f"{name}_out"])], name, [],
                                      [helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, None)])
              for name, op in (("then_branch", "Relu"), ("else_branch", "Neg"))}
    nodes = [helper.make_node("ReduceSum", ["x"], ["sum"]), helper.make_node("Greater", ["sum", "zero"], ["cond"]),
             helper.make_node("If", ["cond", "zero"], ["y"], name="branching", **branch)]
    zero = numpy_helper.from_array(np.array(0, np.float32), "zero")
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [zero])
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]), str(path))
    out = tmp_path / "out.xml"
    result = _convert(path, out)
    assert result.returncode == 1, result.stderr
    _assert_failed_cleanly(result, out, "an ONNX If takes one input (the condition), the node lists 2", "'branching'")
