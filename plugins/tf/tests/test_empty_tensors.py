"""tf.empty_tensors on small graphs: statically empty results become constants, nothing else."""

from __future__ import annotations

import numpy as np
from irconv.testing import GraphBuilder, run_transform
from irconv_opset import MatMul, ReLU
from irconv_tf.transforms.empty_tensors import EmptyTensors


def test_empty_result_becomes_a_constant() -> None:
    b = GraphBuilder("empty", framework="tf")
    x = b.parameter("x", (0, 5))
    w = b.const(np.ones((5, 3), np.float32))
    b.result(b.op(ReLU(), b.op(MatMul(), x, w, name="mm"), name="relu"), "y")
    assert run_transform(b.graph, EmptyTensors()) is True
    assert not b.graph.by_type("MatMul") and not b.graph.by_type("ReLU")
    (result,) = b.graph.results()
    source = result.in_port(0).get_source()
    assert source.node.type == "Const"
    value = source.node.op.value
    assert value.shape == (0, 3) and value.dtype == np.float32
    assert "y" in source.data.names


def test_non_empty_or_dynamic_results_stay() -> None:
    b = GraphBuilder("full", framework="tf")
    x = b.parameter("x", (None, 5))
    b.result(b.op(ReLU(), x, name="relu"), "y")
    b.result(b.op(ReLU(), b.parameter("z", (2, 5)), name="relu2"), "w")
    assert run_transform(b.graph, EmptyTensors()) is False
    assert len(b.graph.by_type("ReLU")) == 2


def test_only_tensorflow_graphs() -> None:
    from irconv import ConversionOptions, TransformContext

    b = GraphBuilder("onnx", framework="onnx")
    b.result(b.op(ReLU(), b.parameter("x", (0, 2))), "y")
    assert EmptyTensors().condition(b.graph, TransformContext(ConversionOptions())) is False
