"""irconv_tf.tf1_control_flow on hand-written node tables (no TensorFlow needed)."""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv_tf.nodes import TFNode
from irconv_tf.proto import graph_pb2
from irconv_tf.tf1_control_flow import functionalize


def _node(name: str, op: str, inputs: list[tuple[str, int]], **attrs: Any) -> TFNode:
    values = {}
    for key, value in attrs.items():
        if isinstance(value, bool):
            values[key] = graph_pb2.AttrValue(b=value)
        elif isinstance(value, str):
            values[key] = graph_pb2.AttrValue(s=value.encode())
        else:
            values[key] = graph_pb2.AttrValue(type=value)
    return TFNode(name, op, inputs, values)


def _const(name: str, value: Any) -> TFNode:
    return TFNode(name, "Const", [], {}, value=np.asarray(value))


def _table(*nodes: TFNode) -> dict[str, TFNode]:
    return {n.name: n for n in nodes}


def test_cond_merge_becomes_if_named_as_the_merge() -> None:
    nodes = _table(
        _node("x", "Placeholder", [], dtype=1),
        _node("p", "Placeholder", [], dtype=10),
        _node("sw", "Switch", [("x", 0), ("p", 0)], T=1),
        _node("t", "Exp", [("sw", 1)], T=1),
        _node("f", "Neg", [("sw", 0)], T=1),
        _node("m", "Merge", [("f", 0), ("t", 0)], T=1),
        _node("out", "Identity", [("m", 0)], T=1),
    )
    functions: dict[str, Any] = {}
    functionalize(nodes, functions, {})
    assert nodes["m"].op == "If"
    assert nodes["m"].inputs == [("p", 0), ("x", 0)]
    assert {"sw", "t", "f"}.isdisjoint(nodes)
    then_ops = [nd.op for nd in functions[nodes["m"].get("then_branch")].node_def]
    else_ops = [nd.op for nd in functions[nodes["m"].get("else_branch")].node_def]
    assert (then_ops, else_ops) == (["Exp"], ["Neg"])


def test_while_frame_becomes_while_and_exit_an_identity() -> None:
    frame = "loop"
    nodes = _table(
        _node("x", "Placeholder", [], dtype=1),
        _const("limit", 5.0),
        _node("enter", "Enter", [("x", 0)], T=1, frame_name=frame, is_constant=False),
        _node("merge", "Merge", [("enter", 0), ("next", 0)], T=1),
        _node("less", "Less", [("merge", 0), ("limit", 0)], T=1),
        _node("loop_cond", "LoopCond", [("less", 0)]),
        _node("switch", "Switch", [("merge", 0), ("loop_cond", 0)], T=1),
        _node("ident", "Identity", [("switch", 1)], T=1),
        _const("two", 2.0),
        _node("double", "Mul", [("ident", 0), ("two", 0)], T=1),
        _node("next", "NextIteration", [("double", 0)], T=1),
        _node("exit", "Exit", [("switch", 0)], T=1),
        _node("out", "Identity", [("exit", 0)], T=1),
    )
    functions: dict[str, Any] = {}
    functionalize(nodes, functions, {})
    (loop,) = [n for n in nodes.values() if n.op == "While"]
    assert loop.inputs == [("x", 0)]
    assert nodes["exit"].op == "Identity" and nodes["exit"].inputs == [(loop.name, 0)]
    assert {"enter", "merge", "switch", "next", "loop_cond", "less", "double"}.isdisjoint(nodes)
    cond = functions[loop.get("cond")]
    body = functions[loop.get("body")]
    assert sorted(nd.op for nd in cond.node_def) == ["Const", "Less"]
    assert sorted(nd.op for nd in body.node_def) == ["Const", "Identity", "Mul"]


def test_graph_without_control_flow_is_left_alone() -> None:
    nodes = _table(_node("x", "Placeholder", [], dtype=1), _node("y", "Relu", [("x", 0)], T=1))
    before = {name: (n.op, list(n.inputs)) for name, n in nodes.items()}
    functions: dict[str, Any] = {}
    functionalize(nodes, functions, {})
    assert {name: (n.op, list(n.inputs)) for name, n in nodes.items()} == before
    assert functions == {}


def test_leftover_construct_is_one_clear_error() -> None:
    import pytest
    from irconv.errors import ModelFileError

    nodes = _table(
        _node("a", "Placeholder", [], dtype=1),
        _node("b", "Placeholder", [], dtype=1),
        _node("m", "Merge", [("a", 0), ("b", 0)], T=1),
    )
    with pytest.raises(ModelFileError, match=r"could not be turned into While/If .*m \(Merge\)"):
        functionalize(nodes, {}, {})
