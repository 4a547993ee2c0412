"""prep.apply_preprocessing on small graphs: folded into a convolution, or explicit layers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from irconv import Graph, InPort, OutPort, Parameter, Result
from irconv.testing import GraphBuilder, run_transform
from irconv_opset import Add, Convolution, ReLU
from irconv_prep.apply_preprocessing import ApplyPreprocessing

MEANS = np.array([10.0, 20.0, 30.0])
SCALES = np.array([2.0, 4.0, 8.0])


def conv_graph(pads: int = 0, shared_input: bool = False, bias: bool = True) -> Graph:
    b = GraphBuilder(framework="onnx")
    x = b.parameter("x", (1, 3, 6, 6))
    w = b.const(np.random.default_rng(0).normal(size=(4, 3, 3, 3)).astype(np.float32), name="w")
    conv = b.op(
        Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(pads, pads), pads_end=(pads, pads)), x, w, name="conv"
    )
    if bias:
        conv = b.op(
            Add(), conv, b.const(np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1), name="bias"), name="bias_add"
        )
    b.result(conv, "y")
    if shared_input:
        b.result(b.op(ReLU(), x, name="side"), "z")
    return b.graph


def reference(graph: Graph, x: np.ndarray) -> np.ndarray:
    """The graph evaluated with NumPy through the ops' own evaluate (inputs by Parameter name)."""
    values: dict[int, np.ndarray] = {}
    for node in graph.topological_order():
        if isinstance(node.op, Parameter):
            values[node.id] = x
            continue
        if isinstance(node.op, Result):
            continue
        inputs = [values[_source(port).node.id] for port in node.in_ports()]
        values[node.id] = np.asarray(node.op.evaluate(inputs)[0])
    (result,) = [r for r in graph.results() if _source(r.in_port(0)).data.names == ["y"]]
    return values[_source(result.in_port(0)).node.id]


def _source(port: InPort) -> OutPort:
    source = port.get_source()
    assert source is not None
    return source


def prepared(rgb: np.ndarray) -> np.ndarray:
    return (rgb[:, ::-1] - MEANS.reshape(1, 3, 1, 1)) / SCALES.reshape(1, 3, 1, 1)


OPTIONS = dict(mean_values="x[10,20,30]", scale_values="x[2,4,8]", reverse_input_channels=True)


def test_folds_into_the_convolution_weights_and_bias(make_options: Callable[..., Any]) -> None:
    graph = conv_graph()
    x = np.random.default_rng(1).uniform(0, 255, (1, 3, 6, 6))
    expected = reference(conv_graph(), prepared(x))
    before = sorted(n.type for n in graph.nodes())
    assert run_transform(graph, ApplyPreprocessing(), make_options(**OPTIONS))
    assert sorted(n.type for n in graph.nodes()) == before  # no layer added
    np.testing.assert_allclose(reference(graph, x), expected, rtol=1e-5)


def test_adds_a_bias_when_the_convolution_has_none(make_options: Callable[..., Any]) -> None:
    graph = conv_graph(bias=False)
    x = np.random.default_rng(2).uniform(0, 255, (1, 3, 6, 6))
    expected = reference(conv_graph(bias=False), prepared(x))
    assert run_transform(graph, ApplyPreprocessing(), make_options(**OPTIONS))
    assert len(graph.by_type("Add")) == 1
    np.testing.assert_allclose(reference(graph, x), expected, rtol=1e-5)


def test_padding_keeps_the_means_in_input_order(make_options: Callable[..., Any]) -> None:
    graph = conv_graph(pads=1)
    x = np.random.default_rng(3).uniform(0, 255, (1, 3, 6, 6))
    expected = reference(conv_graph(pads=1), prepared(x))
    assert run_transform(graph, ApplyPreprocessing(), make_options(**OPTIONS))
    assert [n.type for n in graph.by_type("Subtract", "Gather", "Multiply")] == ["Subtract"]
    np.testing.assert_allclose(reference(graph, x), expected, rtol=1e-5)


def test_an_input_with_other_users_gets_layers(make_options: Callable[..., Any]) -> None:
    graph = conv_graph(shared_input=True)
    x = np.random.default_rng(4).uniform(0, 255, (1, 3, 6, 6))
    expected = reference(conv_graph(), prepared(x))
    assert run_transform(graph, ApplyPreprocessing(), make_options(**OPTIONS))
    assert sorted(n.type for n in graph.by_type("Subtract", "Gather", "Multiply")) == ["Gather", "Multiply", "Subtract"]
    (parameter,) = graph.parameters()
    assert parameter.out_port(0).data.names == ["x"]  # the input keeps its name
    np.testing.assert_allclose(reference(graph, x), expected, rtol=1e-5)


def test_nothing_asked_leaves_the_graph_alone(make_options: Callable[..., Any]) -> None:
    graph = conv_graph()
    assert not run_transform(graph, ApplyPreprocessing(), make_options())


def test_non_image_inputs_are_not_reversed(make_options: Callable[..., Any]) -> None:
    b = GraphBuilder(framework="onnx")
    b.result(b.op(ReLU(), b.parameter("x", (1, 4, 5, 5))), "y")
    assert not run_transform(b.graph, ApplyPreprocessing(), make_options(reverse_input_channels=True))
