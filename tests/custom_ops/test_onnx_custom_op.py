"""ONNX: an op in a custom domain (as exporters write for custom PyTorch ops) end to end.

The reference is ONNX Runtime running the same node, its meaning given by a model-local
function body (x * Sigmoid(x * beta)). irconv converts the model without that body, as an
exporter writes it for a runtime that implements the op natively.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
pytest.importorskip("irconv_onnx")

from onnx import TensorProto, helper  # noqa: E402

BETA = 1.7
SHAPE = [2, 3, 5]


def _model(with_function: bool) -> onnx.ModelProto:
    # Two consumers around the custom op, so it sits inside a graph rather than alone.
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], "relu"),
        helper.make_node("Swish", ["r"], ["s"], "swish", domain="com.example", beta=BETA),
        helper.make_node("Add", ["s", "x"], ["y"], "add"),
    ]
    graph = helper.make_graph(
        nodes,
        "custom_domain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)],
    )
    functions = []
    if with_function:
        beta = helper.make_node("Constant", [], ["beta"], value_float=0.0)
        beta.attribute[0].ref_attr_name = "beta"  # value_float takes the caller's beta
        body = [
            beta,
            helper.make_node("Mul", ["X", "beta"], ["scaled"]),
            helper.make_node("Sigmoid", ["scaled"], ["gate"]),
            helper.make_node("Mul", ["X", "gate"], ["Y"]),
        ]
        functions.append(
            helper.make_function(
                "com.example", "Swish", ["X"], ["Y"], body, [helper.make_opsetid("", 17)], attributes=["beta"]
            )
        )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
        functions=functions,
    )
    model.ir_version = 8
    return model


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    x = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32) * 3
    reference = _model(with_function=True)
    onnx.checker.check_model(reference)
    session = ort.InferenceSession(reference.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(["y"], {"x": x})
    path = tmp_path / "custom.onnx"
    onnx.save(_model(with_function=False), path)
    return path, x, expected


def test_reference_agrees_with_the_definition(files, kit):
    _, x, expected = files
    np.testing.assert_allclose(expected, kit.swish(np.maximum(x, 0), BETA) + x, rtol=1e-5, atol=1e-6)


def test_custom_op_reaches_the_ir_and_runs_with_the_extension(files, kit, tmp_path):
    path, x, expected = files
    xml = kit.convert_and_save(path, tmp_path / "ir" / "model.xml")
    assert ("ExampleSwish", "irconv_example") in kit.ir_layers(xml)
    assert 'beta="1.7"' in xml.read_text()
    got = kit.run_openvino(xml, {"x": x}, extension=True)["y"]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_without_the_extension_openvino_refuses_the_ir(files, kit, tmp_path):
    path, x, _ = files
    xml = kit.convert_and_save(path, tmp_path / "ir" / "model.xml")
    with pytest.raises(RuntimeError, match=kit.UNSUPPORTED_OPSET):
        kit.run_openvino(xml, {"x": x}, extension=False)


def test_lowered_ir_runs_on_stock_openvino(files, kit, tmp_path):
    path, x, expected = files
    xml = kit.convert_and_save(path, tmp_path / "ir" / "model.xml", example_lower_swish=True)
    layers = kit.ir_layers(xml)
    assert all(version.startswith("opset") for _, version in layers)
    assert ("Sigmoid", "opset1") in layers
    got = kit.run_openvino(xml, {"x": x}, extension=False)["y"]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_without_the_plugin_the_op_is_reported(files):
    import irconv
    from irconv.errors import UnsupportedOpsError

    path, _, _ = files
    with pytest.raises(UnsupportedOpsError, match="com.example::Swish"):
        irconv.convert_model(path, disabled_plugins=["example_swish"])


def test_a_block_between_two_tensors_becomes_the_custom_op(kit, tmp_path):
    """Sub-graph replacement by start/end tensors: r -> Mul(1.5) -> Sigmoid -> Mul(r, .) -> s
    becomes one ExampleSwish (``--example-swish-between r:s``); ONNX Runtime runs the original."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], "relu"),
        helper.make_node("Mul", ["r", "beta"], ["scaled"], "scale"),
        helper.make_node("Sigmoid", ["scaled"], ["gate"], "gate"),
        helper.make_node("Mul", ["r", "gate"], ["s"], "mul"),
        helper.make_node("Add", ["s", "x"], ["y"], "add"),
    ]
    beta = helper.make_tensor("beta", TensorProto.FLOAT, [], [1.5])
    graph = helper.make_graph(
        nodes,
        "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)],
        initializer=[beta],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "block.onnx"
    onnx.save(model, path)
    x = np.random.default_rng(8).standard_normal(SHAPE).astype(np.float32) * 3
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(["y"], {"x": x})

    xml = kit.convert_and_save(path, tmp_path / "ir" / "model.xml", example_swish_between=("r:s",))
    layers = kit.ir_layers(xml)
    assert ("ExampleSwish", "irconv_example") in layers and ("Sigmoid", "opset1") not in layers
    got = kit.run_openvino(xml, {"x": x}, extension=True)["y"]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
