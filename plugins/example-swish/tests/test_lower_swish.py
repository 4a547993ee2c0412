"""example.lower_swish: ExampleSwish -> Multiply(x, Sigmoid(Multiply(x, beta))), only when asked."""

import numpy as np
from irconv import ConversionOptions
from irconv.testing import GraphBuilder, graph_signature, run_transform
from irconv_example_swish.lower_swish import LowerExampleSwish
from irconv_example_swish.ops import ExampleSwish
from irconv_example_swish.options import LOWER
from irconv_opset import ReLU


def swish_graph(beta: float) -> GraphBuilder:
    b = GraphBuilder()
    b.result(b.op(ExampleSwish(beta=beta), b.op(ReLU(), b.parameter("x", (2, 4))), name="swish"), "y")
    return b


def test_lowers_into_stock_ops_keeping_the_output_name():
    b = swish_graph(1.5)
    assert run_transform(b.graph, LowerExampleSwish(), **{LOWER.name: True}) is True
    types = sorted(n.type for n in b.graph.nodes())
    assert types == ["Const", "Multiply", "Multiply", "Parameter", "ReLU", "Result", "Sigmoid"]
    (beta,) = [n for n in b.graph.nodes() if n.type == "Const"]
    assert float(beta.op.value) == 1.5 and beta.op.value.dtype == np.float32
    (result,) = b.graph.results()
    out = result.in_port(0).get_source()
    assert out.node.type == "Multiply" and "y" in out.data.names
    assert out.data.get_shape() == (2, 4)


def test_beta_one_needs_no_scaling():
    b = swish_graph(1.0)
    assert run_transform(b.graph, LowerExampleSwish(), **{LOWER.name: True}) is True
    assert sorted(n.type for n in b.graph.nodes()) == ["Multiply", "Parameter", "ReLU", "Result", "Sigmoid"]


def test_a_graph_without_the_op_is_left_alone():
    b = GraphBuilder()
    b.result(b.op(ReLU(), b.parameter("x", (2, 4))), "y")
    before = graph_signature(b.graph)
    assert run_transform(b.graph, LowerExampleSwish(), **{LOWER.name: True}) is False
    assert graph_signature(b.graph) == before


def test_runs_only_when_the_option_is_on():
    b = swish_graph(1.5)
    before = graph_signature(b.graph)
    assert run_transform(b.graph, LowerExampleSwish()) is False  # the option is off by default
    assert graph_signature(b.graph) == before
    assert run_transform(b.graph, LowerExampleSwish(), ConversionOptions().with_values(**{LOWER.name: True}))
