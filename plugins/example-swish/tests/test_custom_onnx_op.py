"""End to end: a model using com.example::Swish converts once this plugin is installed."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("openvino")
pytest.importorskip("irconv_onnx")

import irconv  # noqa: E402
from irconv.errors import UnsupportedOpsError  # noqa: E402
from irconv.testing.runtime import run_ir  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402


def swish_model(path):
    node = helper.make_node("Swish", ["x"], ["y"], "swish", domain="com.example", beta=1.5)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    onnx.save(model, path)
    return path


def test_custom_op_converts_and_matches_numpy(tmp_path):
    path = swish_model(tmp_path / "swish.onnx")
    graph = irconv.convert_model(path)
    xml = tmp_path / "swish.xml"
    irconv.save_model(graph, xml, compress_to_fp16=False)
    x = np.random.default_rng(0).standard_normal((2, 5)).astype(np.float32)
    got = run_ir(xml, {"x": x})["y"]
    np.testing.assert_allclose(got, x / (1 + np.exp(-1.5 * x)), rtol=1e-5, atol=1e-6)


def test_without_the_plugin_the_op_is_reported_unsupported(tmp_path):
    path = swish_model(tmp_path / "swish.onnx")
    with pytest.raises(UnsupportedOpsError, match="com.example::Swish"):
        irconv.convert_model(path, disabled_plugins=["example_swish"])
