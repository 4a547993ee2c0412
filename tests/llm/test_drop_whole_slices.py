"""llm.drop_whole_slices: a Slice that keeps every element of its input is dropped."""

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

INT64_MAX = np.iinfo(np.int64).max


def _model(path: Path, starts: int, ends: int, axis: int) -> Path:
    """y = Relu(Slice(x, [starts], [ends], [axis], [1])) for x [N, T, 4]."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "T", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    bounds = [helper.make_tensor(name, TensorProto.INT64, [1], [value])
              for name, value in (("starts", starts), ("ends", ends), ("axes", axis), ("steps", 1))]
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["sliced"]),
             helper.make_node("Relu", ["sliced"], ["y"])]
    graph = helper.make_graph(nodes, "slice", [x], [y], initializer=bounds)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.mark.parametrize(
    ("starts", "ends", "axis", "slices"),
    [
        (0, INT64_MAX, 1, 0),  # a dynamic axis to its open end: whole
        (0, 4, 2, 0),  # a static axis to its length: whole
        (-4, 4, 2, 0),  # from minus its length: whole
        (0, 3, 2, 1),  # one element short
        (0, 1000, 1, 1),  # a dynamic axis may be longer than 1000
        (1, INT64_MAX, 1, 1),  # the first element left out
    ],
)
def test_whole_slices_are_dropped(starts: int, ends: int, axis: int, slices: int, tmp_path: Path) -> None:
    import onnxruntime

    model = _model(tmp_path / "m.onnx", starts, ends, axis)
    xml = tmp_path / "m.xml"
    save_model(convert_model(model, compress_to_fp16=False), xml)
    types = Counter(node.get_type_name() for node in openvino.Core().read_model(xml).get_ordered_ops())
    assert types["Slice"] + types["StridedSlice"] == slices
    for length in (1, 5):
        feeds = {"x": np.random.default_rng(length).standard_normal((2, length, 4)).astype(np.float32)}
        expected = onnxruntime.InferenceSession(str(model)).run(None, feeds)[0]
        np.testing.assert_array_equal(compile_for_comparison(xml)(feeds)[0], expected)
