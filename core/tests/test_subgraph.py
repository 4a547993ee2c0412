"""Sub-graph replacement: selection by scope or between tensors, and the rewiring."""

import pytest
from core_toy_ops import Add, Relu
from irconv.contract.context import TransformContext
from irconv.contract.options import ConversionOptions
from irconv.errors import UserError
from irconv.pipeline.infer import infer_graph
from irconv.rewrite import SubgraphReplacement, between, by_scope
from irconv.testing import GraphBuilder


def _graph():
    """x -> block/relu -> block/add(relu, relu) -> tail (Relu) -> y."""
    b = GraphBuilder()
    x = b.parameter("x", (1, 4))
    relu = b.op(Relu(), x, name="block/relu")
    relu.data.add_name("r")
    added = b.op(Add(), relu, relu, name="block/add")
    added.data.add_name("s")
    b.result(b.op(Relu(), added, name="tail"), "y")
    infer_graph(b.graph)
    return b.graph


def test_scope_and_between_select_the_same_block():
    graph = _graph()
    scoped, spanned = by_scope(graph, "block"), between(graph, ["x"], ["s"])
    assert [n.name for n in scoped.nodes] == [n.name for n in spanned.nodes] == ["block/relu", "block/add"]
    assert [p.node.name for p in scoped.inputs] == ["x"]
    assert [p.node.name for p in scoped.outputs] == ["block/add"]
    assert by_scope(graph, "nothing") is None


def test_between_refuses_a_block_that_reaches_a_model_input_unannounced():
    with pytest.raises(UserError, match="reaches the model input"):
        between(_graph(), [], ["s"])


class DoubleRelu(SubgraphReplacement):
    """The block is Relu(x) + Relu(x): one Relu, then Add to itself, kept as one Relu and one Add."""

    id = "test.replace_block"

    def subgraphs(self, graph, ctx):
        found = by_scope(graph, "block")
        return [found] if found else []

    def replace(self, sub, rw):
        (x,) = sub.inputs
        relu = rw.op(Relu(), x, name="fused")
        return [rw.op(Add(), relu, relu, name="fused_add")]


def test_replacement_rewires_users_moves_names_and_erases_the_block():
    graph = _graph()
    ctx = TransformContext(ConversionOptions())
    assert DoubleRelu().apply(graph, ctx)
    assert not graph.has_node("block/relu") and not graph.has_node("block/add")
    tail = graph.node("tail")
    assert tail.in_port(0).get_source().node.name == "fused_add"
    assert "s" in tail.in_port(0).get_source().data.names
    assert tail.out_port(0).data.get_shape() == (1, 4)


def test_frozen_nodes_keep_their_block():
    graph = _graph()
    ctx = TransformContext(ConversionOptions(), frozen=lambda node: node.name == "block/add")
    assert not DoubleRelu().apply(graph, ctx)
    assert graph.has_node("block/add") and "frozen" in ctx.notes[0]
