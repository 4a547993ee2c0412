"""A plugin hands OpenVINO its runtime extension through the ``runtime_extensions`` hook, so
``--verify`` and the test kit run IRs holding its custom-opset ops.

The model is ONNX ``com.example::Swish`` carrying its function body, so onnxruntime (the
reference of ``--verify``) runs it by that body while irconv converts the node to the
example plugin's ExampleSwish op.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")
pytest.importorskip("irconv_onnx")
pytest.importorskip("irconv_example_swish")

from irconv.cli.main import main  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

SHAPE = [2, 3, 5]


def _model(path) -> None:
    beta = helper.make_node("Constant", [], ["beta"], value_float=0.0)
    beta.attribute[0].ref_attr_name = "beta"
    body = [beta, helper.make_node("Mul", ["X", "beta"], ["scaled"]), helper.make_node("Sigmoid", ["scaled"], ["gate"]),
            helper.make_node("Mul", ["X", "gate"], ["Y"])]
    function = helper.make_function("com.example", "Swish", ["X"], ["Y"], body, [helper.make_opsetid("", 17)],
                                    attributes=["beta"])
    graph = helper.make_graph(
        [helper.make_node("Swish", ["x"], ["y"], domain="com.example", beta=1.7)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)],
    )
    model = helper.make_model(graph, functions=[function],
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    model.ir_version = 8
    onnx.save(model, path)


def test_verify_runs_a_custom_op_ir_through_the_hook(tmp_path, capsys):
    model = tmp_path / "swish.onnx"
    _model(model)
    out = tmp_path / "swish.xml"
    code = main(["convert", str(model), "-o", str(out), "--verify"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert 'version="irconv_example"' in out.read_text()  # the custom op is in the IR, not lowered
    assert "internal error" not in captured.err


def test_verify_fails_on_a_corrupted_custom_op_ir(tmp_path):
    from irconv.cli.verify import verify
    from irconv.plugins import PluginHost

    model = tmp_path / "swish.onnx"
    _model(model)
    out = tmp_path / "swish.xml"
    assert main(["convert", str(model), "-o", str(out)]) == 0
    xml = out.read_text()
    corrupted = re.sub(r'beta="[^"]+"', 'beta="0.25"', xml)
    assert corrupted != xml
    out.write_text(corrupted)
    from irconv.pipeline import ConversionOptions

    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32) * 3
    checks = verify(model, out, "onnx", {"x": x}, ConversionOptions(), PluginHost().registry())
    assert checks and not all(check.ok for check in checks)


def test_the_test_kit_runs_custom_op_irs(tmp_path):
    from irconv.testing.runtime import run_ir

    model = tmp_path / "swish.onnx"
    _model(model)
    out = tmp_path / "swish.xml"
    assert main(["convert", str(model), "-o", str(out)]) == 0
    x = np.linspace(-4, 4, 30, dtype=np.float32).reshape(SHAPE)
    (y,) = run_ir(out, {"x": x}).values()
    np.testing.assert_allclose(y, x / (1 + np.exp(-1.7 * x)), rtol=1e-5, atol=1e-6)
