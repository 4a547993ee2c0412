"""llm.subtract_constant_as_add: integer x - c with a constant c becomes x + (-c)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import openvino
import pytest
from irconv import convert_model, save_model
from irconv.runtime import compile_for_comparison
from onnx import TensorProto, helper


def _model(path: Path, element_type: int, c: list[float]) -> Path:
    """y = x - c for x [N] of ``element_type``, c a constant of one value."""
    x = helper.make_tensor_value_info("x", element_type, ["N"])
    y = helper.make_tensor_value_info("y", element_type, None)
    graph = helper.make_graph([helper.make_node("Sub", ["x", "c"], ["y"])], "sub", [x], [y],
                              initializer=[helper.make_tensor("c", element_type, [1], c)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _convert(model: Path, xml: Path) -> Counter[str]:
    save_model(convert_model(model, compress_to_fp16=False), xml)
    return Counter(node.get_type_name() for node in openvino.Core().read_model(xml).get_ordered_ops())


@pytest.mark.parametrize(("element_type", "dtype", "c"), [(TensorProto.INT64, np.int64, 4),
                                                          (TensorProto.INT32, np.int32, -7)])
def test_integer_subtraction_of_a_constant_is_an_addition(element_type: int, dtype: type, c: int,
                                                          tmp_path: Path) -> None:
    import onnxruntime

    model = _model(tmp_path / "m.onnx", element_type, [c])
    xml = tmp_path / "m.xml"
    types = _convert(model, xml)
    assert types["Subtract"] == 0 and types["Add"] == 1
    feeds = {"x": np.arange(-5, 6, dtype=dtype)}
    expected = onnxruntime.InferenceSession(str(model)).run(None, feeds)[0]
    np.testing.assert_array_equal(compile_for_comparison(xml)(feeds)[0], expected)

