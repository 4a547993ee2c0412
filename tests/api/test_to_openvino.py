"""``irconv.to_openvino``: the converted graph as an ``openvino.Model``, no files written;
and the API's ``inputs=`` taking what ``--input`` takes."""

from __future__ import annotations

import numpy as np
import pytest
from irconv import convert_model, save_model, to_openvino
from irconv.runtime import compile_for_comparison

ov = pytest.importorskip("openvino")
onnx = pytest.importorskip("onnx")
pytest.importorskip("irconv_onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


@pytest.fixture
def model(tmp_path):
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["y"], ["z"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 8, 8])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        [w],
    )
    path = tmp_path / "conv.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_to_openvino_gives_the_same_model_as_save_and_read(model, tmp_path):
    graph = convert_model(model)
    before = sorted(tmp_path.iterdir())
    in_memory = to_openvino(graph)
    assert sorted(tmp_path.iterdir()) == before  # nothing written
    save_model(graph, tmp_path / "out.xml")
    core = ov.Core()
    x = np.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(np.float32)
    a = compile_for_comparison(in_memory, core=core)(x)[0]
    b = compile_for_comparison(tmp_path / "out.xml", core=core)(x)[0]
    np.testing.assert_array_equal(a, b)
    assert [sorted(o.get_names()) for o in in_memory.outputs] == [["z"]]


@pytest.mark.parametrize("inputs", ["x[2,3,8,8]", ["x[2,3,8,8]"], ("x[2,3,8,8]",)])
def test_inputs_takes_a_string_or_a_list_or_tuple_of_them(model, inputs):
    graph = convert_model(model, inputs=inputs)
    (parameter,) = to_openvino(graph).inputs
    assert parameter.get_partial_shape().to_shape() == [2, 3, 8, 8]
