"""llm.drop_empty_concat_operands: Concat operands of static length 0 along the axis are dropped."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import openvino
from irconv import convert_model, save_model
from irconv.runtime import compile_for_comparison
from onnx import TensorProto, helper


def _model(path: Path, operands: list[str]) -> Path:
    """y = Relu(Concat(operands, axis=2)); ``a``, ``b`` inputs [1, 2, T, 4], ``empty`` a
    constant [1, 2, 0, 4] (how transformers' cache starts)."""
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 2, f"T{n}", 4]) for n in ("a", "b")
              if n in operands]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    empty = helper.make_tensor("empty", TensorProto.FLOAT, [1, 2, 0, 4], [])
    nodes = [helper.make_node("Concat", operands, ["joined"], axis=2), helper.make_node("Relu", ["joined"], ["y"])]
    graph = helper.make_graph(nodes, "concat", inputs, [y], initializer=[empty])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _check(model: Path, xml: Path) -> Counter[str]:
    import onnxruntime

    save_model(convert_model(model, compress_to_fp16=False), xml)
    rng = np.random.default_rng(0)
    feeds = {i.name: rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
             for i in onnxruntime.InferenceSession(str(model)).get_inputs()}
    expected = onnxruntime.InferenceSession(str(model)).run(None, feeds)[0]
    np.testing.assert_array_equal(compile_for_comparison(xml)(feeds)[0], expected)
    return Counter(node.get_type_name() for node in openvino.Core().read_model(xml).get_ordered_ops())


def test_concat_of_empty_and_one_tensor_is_that_tensor(tmp_path: Path) -> None:
    types = _check(_model(tmp_path / "m.onnx", ["empty", "a"]), tmp_path / "m.xml")
    assert types["Concat"] == 0


def test_empty_operand_between_two_is_dropped(tmp_path: Path) -> None:
    model = _model(tmp_path / "m.onnx", ["a", "empty", "b"])
    xml = tmp_path / "m.xml"
    assert _check(model, xml)["Concat"] == 1
    concat = next(n for n in openvino.Core().read_model(xml).get_ordered_ops() if n.get_type_name() == "Concat")
    assert concat.get_input_size() == 2


def test_concat_without_empty_operands_is_left_alone(tmp_path: Path) -> None:
    model = _model(tmp_path / "m.onnx", ["a", "b"])
    xml = tmp_path / "m.xml"
    assert _check(model, xml)["Concat"] == 1
