"""The ONNX loader: views over weights, external data, dims, functions, bad files."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from irconv.errors import ConversionError, ModelFileError
from irconv.ops import Const, Parameter, SourceOp
from irconv_onnx.loader import load_onnx
from irconv_onnx.sniff import looks_like_onnx
from onnx import TensorProto, helper, numpy_helper


def _add_model(weight: np.ndarray, *, input_dims: tuple = ("N", 4), opset: int = 17) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(input_dims))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    graph = helper.make_graph([node], "g", [x], [y], [numpy_helper.from_array(weight, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_initializers_are_views_over_the_protobuf_bytes(save_model) -> None:
    weight = np.arange(4, dtype=np.float32)
    graph = load_onnx(save_model(_add_model(weight)))
    const = graph.node("w").op
    assert isinstance(const, Const)
    np.testing.assert_array_equal(const.value, weight)
    assert not const.value.flags.owndata  # a view, not a copy


def test_symbolic_dims_stay_dynamic_and_names_are_kept(save_model) -> None:
    graph = load_onnx(save_model(_add_model(np.zeros(4, np.float32))))
    param = graph.node("x").op
    assert isinstance(param, Parameter) and param.shape == (None, 4)
    add = graph.node("add")
    assert isinstance(add.op, SourceOp) and add.op.opset_version == 17
    assert add.out_port(0).data.names == ["y"]
    assert [r.in_port(0).get_source().node.name for r in graph.results()] == ["add"]


def test_input_that_is_also_an_initializer_is_a_constant(save_model) -> None:
    model = _add_model(np.ones(4, np.float32))
    model.graph.input.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [4]))
    graph = load_onnx(save_model(model))
    assert isinstance(graph.node("w").op, Const)
    assert [p.name for p in graph.parameters()] == ["x"]


def test_external_data_is_memory_mapped(tmp_path) -> None:
    weight = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    model = _add_model(weight, input_dims=[4096])
    path = tmp_path / "ext.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, location="ext.bin", size_threshold=0)
    graph = load_onnx(path)
    value = graph.node("w").op.value
    assert isinstance(value, np.memmap)
    np.testing.assert_array_equal(value, weight)


def test_missing_external_data_file_names_it(tmp_path) -> None:
    model = _add_model(np.ones(1024, np.float32), input_dims=[1024])
    path = tmp_path / "ext.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, location="weights.bin", size_threshold=0)
    (tmp_path / "weights.bin").unlink()
    with pytest.raises(ModelFileError, match="weights.bin"):
        load_onnx(path)


def test_truncated_file_is_a_model_file_error(tmp_path, save_model) -> None:
    good = save_model(_add_model(np.ones(64, np.float32), input_dims=[64]))
    bad = tmp_path / "cut.onnx"
    bad.write_bytes(good.read_bytes()[:-40])
    with pytest.raises(ModelFileError, match="cut.onnx"):
        load_onnx(bad)


def test_sniffing_does_not_need_the_suffix(tmp_path, save_model) -> None:
    path = save_model(_add_model(np.ones(4, np.float32)), name="model.bin")
    assert looks_like_onnx(path)
    other = tmp_path / "x.txt"
    other.write_text("name: 'caffe'\n")
    assert not looks_like_onnx(other)


def test_model_local_functions_are_expanded(save_model) -> None:
    fn = helper.make_function(
        "custom", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
        [helper.make_opsetid("", 17)],
    )
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Twice", ["x"], ["y"], domain="custom")], "g", [x], [y])
    model = helper.make_model(graph, functions=[fn],
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("custom", 1)])
    graph = load_onnx(save_model(model))
    types = sorted(n.type for n in graph.nodes())
    assert types == ["Add", "Parameter", "Result"]


def test_sequence_inputs_are_rejected_with_the_input_name(save_model) -> None:
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("SequenceLength", ["s"], ["y"])], "g", [seq], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ConversionError, match="'s'"):
        load_onnx(save_model(model))
