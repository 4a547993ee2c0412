"""The core's adjacency checked against networkx, an independent implementation of the same
graph questions: topological order, cycle detection, reachability."""

from __future__ import annotations

import random

import pytest
from core_toy_ops import Add, Relu
from irconv.errors import GraphError
from irconv.graph import Graph, to_networkx
from irconv.ops import Parameter, Result

networkx = pytest.importorskip("networkx")


def random_dag(seed: int, size: int = 60) -> Graph:
    """A random graph of Adds and Relus over two parameters, some tensors used twice."""
    rng = random.Random(seed)
    graph = Graph(f"g{seed}", "toy")
    ports = [graph.add_node(Parameter((1, 4)), f"p{i}").out_port(0) for i in range(2)]
    for i in range(size):
        if rng.random() < 0.5:
            node = graph.add_node(Relu(), f"r{i}", [rng.choice(ports)])
        else:
            a = rng.choice(ports)
            node = graph.add_node(Add(), f"a{i}", [a, a if rng.random() < 0.2 else rng.choice(ports)])
        ports.append(node.out_port(0))
    graph.add_node(Result(), "out", [ports[-1]])
    return graph


@pytest.mark.parametrize("seed", range(8))
def test_topological_order_agrees_with_networkx(seed):
    graph = random_dag(seed)
    view = to_networkx(graph)
    assert view.number_of_nodes() == len(graph.nodes())
    assert view.number_of_edges() == sum(len(n.in_ports()) for n in graph.nodes())
    position = {node.name: i for i, node in enumerate(graph.topological_order())}
    assert len(position) == view.number_of_nodes()
    assert all(position[u] < position[v] for u, v in view.edges())
    assert networkx.is_directed_acyclic_graph(view)


@pytest.mark.parametrize("seed", range(8))
def test_reachability_agrees_with_networkx(seed):
    graph = random_dag(seed)
    view = to_networkx(graph)
    start = graph.node(f"p{seed % 2}")
    downstream = {node.name for node in graph.descendants_order([start])}
    assert downstream == networkx.descendants(view, start.name) | {start.name}


def test_a_cycle_is_found_by_both():
    graph = random_dag(3, size=10)
    first = graph.node("r0") if graph.has_node("r0") else graph.node("a0")
    last = [n for n in graph.descendants_order([first]) if n.type != "Result"][-1]
    first.in_port(0).disconnect()
    first.in_port(0).connect(last.out_port(0))  # close a loop through the graph
    view = to_networkx(graph)
    cycle = networkx.find_cycle(view)
    assert cycle
    with pytest.raises(GraphError):
        graph.topological_order()
