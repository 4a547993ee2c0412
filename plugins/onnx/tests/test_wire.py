"""Large inline initializers stay in the .onnx file: memory-mapped, not copied by the parse."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from irconv_onnx.loader import load_onnx, read_model_proto
from irconv_onnx.wire import MIN_BYTES, externalized
from onnx import TensorProto, helper, numpy_helper


def _model(weights: np.ndarray, bias: np.ndarray) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, weights.shape[0]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, weights.shape[1]])],
        [numpy_helper.from_array(weights, "w"), numpy_helper.from_array(bias, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _consts(graph) -> dict[str, np.ndarray]:
    return {n.name: n.op.value for n in graph.nodes() if n.type == "Const"}


def test_large_initializers_are_mapped_from_the_model_file(tmp_path):
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((512, 256)).astype(np.float32)  # 512 KiB: left in the file
    bias = rng.standard_normal(256).astype(np.float32)  # 1 KiB: parsed as usual
    path = tmp_path / "m.onnx"
    onnx.save_model(_model(weights, bias), str(path))
    proto = read_model_proto(path)
    tensors = {t.name: t for t in proto.graph.initializer}
    assert tensors["w"].data_location == TensorProto.EXTERNAL and not tensors["w"].raw_data
    assert tensors["b"].data_location == TensorProto.DEFAULT
    consts = _consts(load_onnx(path))
    assert isinstance(consts["w"], np.memmap)
    np.testing.assert_array_equal(consts["w"], weights)
    np.testing.assert_array_equal(consts["b"], bias)


def test_files_the_pass_does_not_expect_are_parsed_whole(tmp_path):
    weights = np.ones((MIN_BYTES // 4, 1), np.float32)
    model = _model(weights, np.zeros(1, np.float32))
    data = model.SerializeToString()
    assert externalized(memoryview(data), "m.onnx") is not None
    assert externalized(memoryview(data[:-7]), "m.onnx") is None  # truncated
    twice = onnx.ModelProto()
    twice.CopyFrom(model)
    twice.graph.initializer[0].dims[0] -= 1  # byte count no longer matches the shape
    assert externalized(memoryview(twice.SerializeToString()), "m.onnx") is None
    link = tmp_path / "link.onnx"
    onnx.save_model(model, str(tmp_path / "real.onnx"))
    link.symlink_to(tmp_path / "real.onnx")
    assert read_model_proto(link).graph.initializer[0].data_location == TensorProto.DEFAULT


@pytest.mark.parametrize("cut", [7, 1000])
def test_a_truncated_model_still_gets_the_ordinary_error(tmp_path, cut):
    from irconv.errors import ModelFileError

    model = _model(np.ones((MIN_BYTES // 4, 2), np.float32), np.zeros(2, np.float32))
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString()[:-cut])
    with pytest.raises(ModelFileError, match="not a valid ONNX model"):
        read_model_proto(path)
