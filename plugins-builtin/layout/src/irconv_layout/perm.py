"""Permutation arithmetic and the small graph edits the layout transforms share."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from irconv.graph import Graph, Node, OutPort
from irconv.ops import Const
from irconv.pipeline.infer import infer_node, node_outputs_reset

Perm = tuple[int, ...]


def channels_first(rank: int) -> Perm:
    """N...C -> NC...: [0, r-1, 1, ..., r-2]."""
    return (0, rank - 1, *range(1, rank - 1))


def channels_last(rank: int) -> Perm:
    """NC... -> N...C: [0, 2, ..., r-1, 1]."""
    return (0, *range(2, rank), 1)


def inverse(perm: Sequence[int]) -> Perm:
    result = [0] * len(perm)
    for i, p in enumerate(perm):
        result[p] = i
    return tuple(result)


def compose(first: Sequence[int], second: Sequence[int]) -> Perm:
    """The permutation of Transpose(Transpose(x, first), second)."""
    return tuple(first[p] for p in second)


def is_identity(perm: Sequence[int]) -> bool:
    return all(i == p for i, p in enumerate(perm))


def transpose_perm(node: Node) -> Perm | None:
    """The constant permutation of a Transpose node, or None."""
    if node.type != "Transpose" or not node.has_input(1):
        return None
    value = node.input_value(1)
    if value is None:
        return None
    perm = tuple(int(v) for v in np.asarray(value).reshape(-1))
    if sorted(perm) != list(range(len(perm))):
        return None
    return perm


def add_transpose(graph: Graph, source: OutPort | None, perm: Sequence[int], name: str) -> Node:
    from irconv_opset import Transpose

    perm_node = graph.add_node(Const(np.asarray(perm, dtype=np.int64)), f"{name}/perm")
    infer_node(perm_node)
    return graph.add_node(Transpose(), name, [source, perm_node.out_port(0)])


def add_const(graph: Graph, value: np.ndarray, name: str) -> OutPort:
    value = np.asarray(value)
    # (np.ascontiguousarray would turn a 0-d value into 1-d)
    node = graph.add_node(Const(value if value.flags.c_contiguous else value.copy(order="C")), name)
    infer_node(node)
    return node.out_port(0)


def refresh(*nodes: Node) -> None:
    """Re-infer nodes whose inputs changed, in the given order (shapes downstream are unchanged)."""
    for node in nodes:
        node_outputs_reset(node)
        infer_node(node)
