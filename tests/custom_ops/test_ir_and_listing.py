"""The custom op through the IR reader, constant folding, and the listing commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("irconv_onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def swish_model(path: Path, constant_input: np.ndarray | None = None) -> Path:
    """y = Swish_com.example(x or a constant, beta=0.75) + x."""
    nodes = []
    source = "x"
    if constant_input is not None:
        nodes.append(helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(constant_input)))
        source = "c"
    nodes += [
        helper.make_node("Swish", [source], ["s"], "swish", domain="com.example", beta=0.75),
        helper.make_node("Add", ["s", "x"], ["y"], "add"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    onnx.save(model, path)
    return path


def test_ir_with_the_custom_op_reads_back_byte_identical(tmp_path, kit):
    first = kit.convert_and_save(swish_model(tmp_path / "m.onnx"), tmp_path / "a" / "model.xml")
    second = kit.convert_and_save(first, tmp_path / "b" / "model.xml")
    assert ("ExampleSwish", "irconv_example") in kit.ir_layers(second)
    assert first.read_bytes() == second.read_bytes()
    assert first.with_suffix(".bin").read_bytes() == second.with_suffix(".bin").read_bytes()


def test_reading_the_ir_without_the_plugin_names_what_to_install(tmp_path, kit):
    import irconv
    from irconv.errors import UnsupportedOpsError

    xml = kit.convert_and_save(swish_model(tmp_path / "m.onnx"), tmp_path / "a" / "model.xml")
    with pytest.raises(UnsupportedOpsError) as caught:
        irconv.convert_model(xml, disabled_plugins=["example_swish"])
    message = str(caught.value)
    assert "ExampleSwish (version=\"irconv_example\") x1: layer 'swish'" in message
    assert "no installed plugin declares custom opset 'irconv_example'" in message


def test_constant_inputs_fold_with_the_plugins_evaluate(tmp_path, kit):
    c = np.linspace(-4, 4, 6, dtype=np.float32).reshape(2, 3)
    xml = kit.convert_and_save(swish_model(tmp_path / "m.onnx", constant_input=c), tmp_path / "a" / "model.xml")
    assert "ExampleSwish" not in {t for t, _ in kit.ir_layers(xml)}
    x = np.ones((2, 3), np.float32)
    (got,) = kit.run_openvino(xml, {"x": x}, extension=False).values()
    np.testing.assert_allclose(got, kit.swish(c, 0.75) + x, rtol=1e-6, atol=1e-6)


def _cli(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "irconv", *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_plugins_and_ops_list_the_custom_op_with_its_plugin():
    plugins = [line for line in _cli("plugins").splitlines() if line.startswith("example_swish")]
    assert len(plugins) == 1 and "irconv-example-swish" in plugins[0] and "1 ops" in plugins[0]
    assert "(custom opset irconv_example)" in plugins[0]
    rows = [line.split() for line in _cli("ops", "--opset").splitlines() if line.startswith("ExampleSwish")]
    assert rows and rows[0][:3] == ["ExampleSwish", "irconv_example", "irconv_example"]
    assert "irconv-example-swish" in rows[0]
    extractors = _cli("ops", "--framework", "ir")
    assert "irconv_example::ExampleSwish" in extractors
