"""llm.gather_as_vector: a dimension read as Unsqueeze(Gather(shape, i)) becomes one Gather."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import openvino
from irconv import convert_model, save_model
from onnx import TensorProto, helper
from irconv.runtime import compile_for_comparison


def _view_model(path: Path, index_shape: list[int]) -> Path:
    """y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), i), 0), [-1])): x [N, 3, 4] -> [N, 12]
    (with ``index_shape`` [1] the Gather keeps a vector, and the Unsqueeze makes it 2-D)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    initializers = [
        helper.make_tensor("i", TensorProto.INT64, index_shape, [0]),
        helper.make_tensor("axes", TensorProto.INT64, [1], [0]),
        helper.make_tensor("rest", TensorProto.INT64, [1], [-1]),
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "i"], ["batch"], axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes"], ["batch_1d"]),
    ]
    if index_shape:  # [1, 1]: flattened back for the Concat
        nodes.append(helper.make_node("Reshape", ["batch_1d", "rest"], ["batch_vector"]))
    nodes += [
        helper.make_node("Concat", ["batch_vector" if index_shape else "batch_1d", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "view", [x], [y], initializer=initializers)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _convert(model: Path, xml: Path) -> Counter[str]:
    # fold.symbolic_shapes would give the view a constant target: the dim read must stay to be tested
    save_model(convert_model(model, compress_to_fp16=False, disabled_transforms=["fold.symbolic_shapes"]), xml)
    return Counter(node.get_type_name() for node in openvino.Core().read_model(xml).get_ordered_ops())


def test_scalar_dimension_read_as_a_vector(tmp_path: Path) -> None:
    import onnxruntime

    model = _view_model(tmp_path / "view.onnx", [])
    xml = tmp_path / "view.xml"
    types = _convert(model, xml)
    assert types["Unsqueeze"] == 0 and types["Gather"] == 1
    for batch in (1, 5):
        feeds = {"x": np.random.default_rng(batch).standard_normal((batch, 3, 4)).astype(np.float32)}
        expected = onnxruntime.InferenceSession(str(model)).run(None, feeds)[0]
        got = compile_for_comparison(xml)(feeds)[0]
        assert got.shape == expected.shape == (batch, 12)
        np.testing.assert_array_equal(got, expected)


def test_a_vector_index_is_left_alone(tmp_path: Path) -> None:
    types = _convert(_view_model(tmp_path / "view.onnx", [1]), tmp_path / "view.xml")
    assert types["Unsqueeze"] == 1
