from irconv.testing import GraphBuilder, graph_signature, run_transform
from irconv_example_swish.fuse_double_relu import FuseDoubleRelu
from irconv_opset import ReLU, Sigmoid


def test_relu_of_relu_becomes_one_relu():
    b = GraphBuilder()
    b.result(b.op(ReLU(), b.op(ReLU(), b.parameter("x", (1, 4)), name="inner"), name="outer"), "y")
    assert run_transform(b.graph, FuseDoubleRelu()) is True
    assert [n.type for n in b.graph.topological_order()] == ["Parameter", "ReLU", "Result"]
    assert "y" in b.graph.node("inner").out_port(0).data.names


def test_other_chains_are_left_alone():
    b = GraphBuilder()
    b.result(b.op(ReLU(), b.op(Sigmoid(), b.parameter("x", (1, 4)))), "y")
    before = graph_signature(b.graph)
    assert run_transform(b.graph, FuseDoubleRelu()) is False
    assert graph_signature(b.graph) == before
