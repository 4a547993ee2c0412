import numpy as np
import pytest
from core_toy_ops import Add, Relu, Split2
from irconv.errors import GraphError
from irconv.graph import Graph
from irconv.ops import Const, Parameter, Result
from irconv.testing import GraphBuilder


def chain() -> tuple[GraphBuilder, list]:
    b = GraphBuilder()
    x = b.parameter("x", (1, 4))
    r1 = b.op(Relu(), x, name="r1")
    r2 = b.op(Relu(), r1, name="r2")
    b.result(r2, "y")
    return b, [x, r1, r2]


def test_ports_know_their_sources_and_destinations():
    b, (x, r1, r2) = chain()
    assert b.graph.node("r2").in_port(0).get_source() == r1
    assert r1.get_destinations() == [b.graph.node("r2").in_port(0)]
    assert b.graph.node("r1").num_inputs() == 1


def test_connect_replaces_the_previous_source():
    b, (x, r1, r2) = chain()
    r2_node = b.graph.node("r2")
    r2_node.in_port(0).connect(x)
    assert r2_node.in_port(0).get_source() == x
    assert r1.get_destinations() == []


def test_removing_a_used_node_raises():
    b, _ = chain()
    with pytest.raises(GraphError, match="still used"):
        b.graph.remove_node(b.graph.node("r1"))


def test_set_source_moves_consumers_and_tensor_names():
    b, (x, r1, r2) = chain()
    r2.get_connection().set_source(r1)
    result = b.graph.results()[0]
    assert result.in_port(0).get_source() == r1
    assert "y" in r1.data.names and r2.data.names == []


def test_insert_node_goes_between_source_and_all_destinations():
    b, (x, r1, r2) = chain()
    extra = b.graph.add_node(Relu(), "extra")
    r1.get_connection().insert_node(extra)
    assert b.graph.node("r2").in_port(0).get_source() == extra.out_port(0)
    assert extra.in_port(0).get_source() == r1


def test_clean_up_removes_what_no_result_needs_but_keeps_parameters():
    b, (x, r1, r2) = chain()
    unused = b.graph.add_node(Parameter((2,)), "unused")
    b.graph.add_node(Relu(), "dead", [r1])
    assert b.graph.clean_up() == 1
    assert not b.graph.has_node("dead")
    assert unused in b.graph


def test_topological_order_puts_producers_first():
    b = GraphBuilder()
    # built consumer-first to make creation order differ from data order
    g = b.graph
    late = g.add_node(Relu(), "late")
    x = b.parameter("x", (3,))
    late.in_port(0).connect(x)
    b.result(late.out_port(0))
    order = [n.name for n in g.topological_order()]
    assert order.index("x") < order.index("late")


def test_cycles_are_reported_with_their_members():
    b, (x, r1, r2) = chain()
    b.graph.node("r1").in_port(0).connect(r2)
    with pytest.raises(GraphError, match=r"cycle through \['r1', 'r2'\]|cycle through \['r2', 'r1'\]"):
        b.graph.topological_order()


def test_type_index_follows_op_changes():
    b, _ = chain()
    g = b.graph
    assert [n.name for n in g.by_type("ReLU")] == ["r1", "r2"]
    g.node("r1").op = Add()
    assert [n.name for n in g.by_type("ReLU")] == ["r2"]
    assert [n.name for n in g.by_type("Add")] == ["r1"]


def test_edits_mark_nodes_for_reinference():
    b, (x, r1, r2) = chain()
    b.graph.take_dirty()
    b.graph.node("r2").in_port(0).connect(x)
    assert [n.name for n in b.graph.take_dirty()] == ["r2"]
    assert b.graph.take_dirty() == []


def test_names_are_made_unique():
    g = Graph()
    a = g.add_node(Const(np.zeros(1, np.float32)), "w")
    c = g.add_node(Const(np.zeros(1, np.float32)), "w")
    assert (a.name, c.name) == ("w", "w_1")


def test_multi_output_ports_are_independent():
    b = GraphBuilder()
    x = b.parameter("x", (2,))
    split = b.node(Split2(), x, name="split")
    b.result(split.out_port(1), "second")
    assert split.out_port(0).get_destinations() == []
    assert len(split.out_port(1).get_destinations()) == 1


def test_removed_nodes_fail_loudly_when_used():
    b, (x, r1, r2) = chain()
    result = b.graph.results()[0]
    result.in_port(0).disconnect()
    b.graph.remove_node(result)
    node = b.graph.node("r2")
    b.graph.remove_node(node)
    with pytest.raises(GraphError):
        node.in_port(0).get_source()


def test_results_keep_creation_order():
    b = GraphBuilder()
    x = b.parameter("x", (1,))
    b.result(b.op(Relu(), x), "first")
    b.result(x, "second")
    assert [r.in_port(0).data.names[-1] for r in b.graph.results()] == ["first", "second"]
    assert isinstance(b.graph.results()[0].op, Result)



def test_one_output_feeding_two_inputs_of_one_node_counts_as_two_connections():
    b = GraphBuilder()
    x = b.parameter("x", (1, 4))
    b.result(b.op(Add(), x, x, name="square"), "y")
    square = b.graph.node("square")
    assert x.get_destinations() == [square.in_port(0), square.in_port(1)]
    assert [n.name for n in b.graph.topological_order()][:2] == ["x", "square"]
    square.in_port(0).disconnect()
    assert x.get_destinations() == [square.in_port(1)]
    assert square.in_port(0).get_source() is None
    assert square.num_inputs() == 2  # port 1 is still connected


def test_input_count_shrinks_when_the_highest_input_is_disconnected():
    b = GraphBuilder()
    x = b.parameter("x", (1, 4))
    node = b.graph.add_node(Add(), "sum", [None, None, x])
    assert node.num_inputs() == 3
    assert node.in_port(0).get_source() is None
    node.in_port(2).disconnect()
    assert node.num_inputs() == 0
    assert x.get_destinations() == []
    assert node.in_port(-1).get_source() is None


def test_removed_nodes_leave_no_connections_behind():
    b = GraphBuilder()
    x = b.parameter("x", (1, 4))
    r1 = b.op(Relu(), x, name="r1")
    b.op(Add(), r1, r1, name="dead")
    b.result(x, "y")
    assert b.graph.clean_up() == 2
    assert [p.node.type for p in x.get_destinations()] == ["Result"]
    assert [n.name for n in b.graph.topological_order()] == ["x", "y/sink"]
