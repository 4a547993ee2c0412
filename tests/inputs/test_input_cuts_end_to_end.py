"""``--input`` cuts, fixed values and ranges, through the ONNX front end and OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ov = pytest.importorskip("openvino")

from irconv import convert_model, save_model  # noqa: E402
from irconv.testing.runtime import run_ir  # noqa: E402


def _model(path: Path) -> Path:
    """x -> com.unknown::Weird -> Relu("relu") -> Sigmoid -> y, and Add(y, bias) -> z."""
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("Weird", ["x"], ["w"], domain="com.unknown", name="weird"),
        helper.make_node("Relu", ["w"], ["r"], name="relu"),
        helper.make_node("Sigmoid", ["r"], ["y"], name="sigmoid"),
        helper.make_node("Add", ["y", "bias"], ["z"], name="add"),
    ]
    graph = helper.make_graph(
        nodes,
        "cut",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
            helper.make_tensor_value_info("bias", TensorProto.FLOAT, [1, 4]),
        ],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4])],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.unknown", 1)]
    onnx.save_model(helper.make_model(graph, opset_imports=opsets), path)
    return path


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


@pytest.mark.parametrize("cut", ["0:relu", "w", "weird:0"])
def test_cut_input_skips_the_unsupported_producer(tmp_path: Path, cut: str) -> None:
    graph = convert_model(_model(tmp_path / "m.onnx"), inputs=[f"{cut}[1,4]", "bias"])
    xml = tmp_path / "cut.xml"
    save_model(graph, xml)
    a = np.random.default_rng(0).standard_normal((1, 4)).astype(np.float32)
    bias = np.arange(4, dtype=np.float32).reshape(1, 4)
    (z,) = run_ir(xml, {cut: a, "bias": bias}).values()
    np.testing.assert_allclose(z, _sigmoid(np.maximum(a, 0)) + bias, rtol=1e-6)


def test_fixed_value_and_range_reach_the_runtime(tmp_path: Path) -> None:
    graph = convert_model(_model(tmp_path / "m.onnx"), inputs=["0:relu[1,1..8]", "bias[1]->[0.5]"])
    xml = tmp_path / "cut.xml"
    save_model(graph, xml)
    model = ov.Core().read_model(str(xml))
    (param,) = model.inputs
    assert str(param.get_partial_shape()) == "[1,1..8]"
    a = np.linspace(-2, 2, 6, dtype=np.float32).reshape(1, 6)
    (z,) = run_ir(xml, {"0:relu": a}).values()
    np.testing.assert_allclose(z, _sigmoid(np.maximum(a, 0)) + 0.5, rtol=1e-6)
