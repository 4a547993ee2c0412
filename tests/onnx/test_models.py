"""Small ONNX models end to end: irconv IR on OpenVINO against onnxruntime."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)


def _w(name: str, *shape: int) -> object:
    return numpy_helper.from_array(RNG.standard_normal(shape).astype(np.float32) * 0.1, name)


def test_conv_block_with_flatten_and_gemm(convert_and_compare) -> None:
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c1", "g", "beta", "mean", "var"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p", "w2"], ["c2"], group=4, kernel_shape=[3, 3], auto_pad="SAME_UPPER"),
        helper.make_node("GlobalAveragePool", ["c2"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc", "fcb"], ["y"], transB=1, alpha=0.5),
        helper.make_node("Softmax", ["y"], ["prob"], axis=1),
    ]
    inits = [
        _w("w1", 8, 3, 3, 3), _w("b1", 8), _w("w2", 8, 2, 3, 3), _w("fc", 10, 8), _w("fcb", 10),
        numpy_helper.from_array(np.ones(8, np.float32), "g"), numpy_helper.from_array(np.zeros(8, np.float32), "beta"),
        numpy_helper.from_array(np.full(8, 0.1, np.float32), "mean"),
        numpy_helper.from_array(np.full(8, 2.0, np.float32), "var"),
    ]
    graph = helper.make_graph(
        nodes, "convnet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, None)], inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    convert_and_compare(model, {"x": RNG.standard_normal((2, 3, 16, 16)).astype(np.float32)})


def test_transformer_block_with_contrib_ops(convert_and_compare) -> None:
    hidden = 16
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"]),
        helper.make_node("FusedMatMul", ["x", "wk"], ["k"], domain="com.microsoft", transB=1, alpha=0.25),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["attn"], axis=-1),
        helper.make_node("MatMul", ["attn", "x"], ["ctx"]),
        helper.make_node("SkipLayerNormalization", ["ctx", "x", "gamma", "beta"], ["ln"], domain="com.microsoft",
                         epsilon=1e-5),
        helper.make_node("MatMul", ["ln", "w1"], ["h"]),
        helper.make_node("BiasGelu", ["h", "b1"], ["act"], domain="com.microsoft"),
        helper.make_node("FastGelu", ["act"], ["act2"], domain="com.microsoft"),
        helper.make_node("LayerNormalization", ["act2", "gamma2", "beta2"], ["y"], axis=-1),
    ]
    inits = [
        _w("wq", hidden, hidden), _w("wk", hidden, hidden), _w("w1", hidden, 32), _w("b1", 32),
        _w("gamma", hidden), _w("beta", hidden), _w("gamma2", 32), _w("beta2", 32),
    ]
    graph = helper.make_graph(
        nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "T", hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    convert_and_compare(model, {"x": RNG.standard_normal((2, 5, hidden)).astype(np.float32)}, rtol=1e-3, atol=1e-4)


def test_flatten_keeps_the_ir_reshapeable(convert_and_compare, tmp_path) -> None:
    import openvino as ov

    graph = helper.make_graph(
        [helper.make_node("Flatten", ["x"], ["y"], axis=2)], "flat",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    convert_and_compare(model, {"x": RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)})
    ir = ov.Core().read_model(str(tmp_path / "model.xml"))
    ir.reshape({"x": [3, 2, 6, 7]})
    assert list(ir.output(0).get_partial_shape().to_shape()) == [6, 42]


def test_lstm_bidirectional_against_onnxruntime(convert_and_compare) -> None:
    hidden, inputs = 5, 3
    nodes = [helper.make_node("LSTM", ["x", "W", "R", "B"], ["Y", "Y_h", "Y_c"], hidden_size=hidden,
                              direction="bidirectional")]
    inits = [_w("W", 2, 4 * hidden, inputs), _w("R", 2, 4 * hidden, hidden), _w("B", 2, 8 * hidden)]
    graph = helper.make_graph(
        nodes, "lstm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [7, 2, inputs])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("Y", "Y_h", "Y_c")], inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    convert_and_compare(model, {"x": RNG.standard_normal((7, 2, inputs)).astype(np.float32)})
