"""A batch of rewriter edits infers each node it touched once, and never leaves a stale fact."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from core_toy_ops import Relu
from irconv.graph import Graph, Node
from irconv.graph.infer import infer_graph
from irconv.rewrite import Rewriter
from irconv.testing import GraphBuilder


@dataclass(eq=False)
class CountedRelu(Relu):
    """A ReLU that counts its inferences."""

    calls: list[int] = field(default_factory=list)

    def infer(self, node: Node) -> None:
        self.calls.append(1)
        super().infer(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.maximum(inputs[0], 0)]


def _inferred(graph: Graph) -> Graph:
    infer_graph(graph)
    return graph


def test_a_node_built_in_a_batch_is_not_inferred_again_at_its_end() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (1, 8))
    relu = b.op(Relu(), x, name="relu")
    b.result(relu, "out")
    graph = _inferred(b.graph)
    counted = CountedRelu()
    rw = Rewriter(graph)
    with rw.batch():
        inserted = rw.insert_after(graph.node("relu").out_port(0), counted, name="after")
    assert len(counted.calls) == 1
    assert inserted.out_port(0).data.get_shape() == (1, 8)


def test_a_source_inferred_later_in_the_batch_makes_its_consumer_inferred_again() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (1, 8))
    y = b.parameter("y", (2, 5))
    b.result(b.op(Relu(), x, name="relu"), "out")
    graph = _inferred(b.graph)
    relu = graph.node("relu")
    counted = CountedRelu()
    rw = Rewriter(graph)
    with rw.batch():
        after = rw.insert_after(relu.out_port(0), counted, name="after")
        rw.set_input(relu.in_port(0), y)  # relu now (2, 5): "after" read (1, 8)
        assert after.out_port(0).data.get_shape() == (1, 8)
    assert after.out_port(0).data.get_shape() == (2, 5)
    assert len(counted.calls) == 2


def test_a_value_the_batch_made_unknown_does_not_survive() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (3,))
    c = b.const(np.array([-1.0, 0.0, 2.0], np.float32), name="c")
    b.result(b.op(Relu(), c, name="relu"), "out")
    graph = _inferred(b.graph)
    relu = graph.node("relu")
    assert relu.out_port(0).data.value is not None
    rw = Rewriter(graph)
    with rw.batch():
        rw.set_input(relu.in_port(0), x)
    assert relu.out_port(0).data.value is None
