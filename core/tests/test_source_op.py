"""SourceOp: what a loader's per-node op shows, and what it costs per node."""

from __future__ import annotations

import copy
import pickle

import pytest
from irconv.graph import Graph
from irconv.ops import SourceOp


def test_node_type_shows_the_framework_op_until_extraction() -> None:
    graph = Graph("g", "onnx")
    node = graph.add_node(SourceOp(framework="onnx", op_type="Relu", n_outputs=2))
    assert node.type == "Relu"
    assert graph.by_type("Relu") == [node]
    assert node.num_outputs() == 2
    assert node.op.describe() == "onnx Relu"


def test_nodes_without_sub_graphs_share_one_read_only_empty_bodies_mapping() -> None:
    first, second = SourceOp(op_type="A"), SourceOp(op_type="B")
    assert first.bodies is second.bodies
    assert dict(first.bodies) == {}
    with pytest.raises(TypeError):
        first.bodies["then"] = Graph()  # type: ignore[index]


def test_a_source_op_copies_and_pickles() -> None:
    op = SourceOp(framework="onnx", op_type="Relu", n_outputs=2)
    for twin in (copy.copy(op), copy.deepcopy(op), pickle.loads(pickle.dumps(op))):
        assert (twin.type, twin.framework, twin.n_outputs) == ("Relu", "onnx", 2)
        assert twin.bodies is op.bodies


def test_a_source_op_carries_no_instance_dict() -> None:
    # A loader makes one per framework node; a 300k-node model keeps them all until extraction.
    op = SourceOp(op_type="Relu")
    assert not hasattr(op, "__dict__")
    with pytest.raises(AttributeError):
        op.unknown = 1  # type: ignore[attr-defined]
