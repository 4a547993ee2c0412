"""Compare graphs structurally, by a canonical text form."""

from __future__ import annotations

from irconv.graph import Graph
from irconv.ops import Const


def graph_signature(graph: Graph) -> list[str]:
    """One line per node in topological order: ``#i Type(attrs) <- #j:out, ...``.

    Node names are left out, so two graphs built differently but computing the same
    ops in the same wiring compare equal. Const values are included by content.
    """
    order = graph.topological_order()
    index = {node.id: i for i, node in enumerate(order)}
    lines = []
    for i, node in enumerate(order):
        op = node.op
        if isinstance(op, Const):
            described = f"Const({op.value.dtype}{list(op.value.shape)}={op.value.ravel()[:8].tolist()})"
        else:
            attrs = ",".join(f"{k}={v}" for k, v in op.ir_attributes().items())
            described = f"{op.describe()}({attrs})"
        inputs = []
        for port in node.in_ports():
            source = port.get_source()
            inputs.append("-" if source is None else f"#{index[source.node.id]}:{source.idx}")
        lines.append(f"#{i} {described} <- {', '.join(inputs)}")
    return lines


def assert_graphs_equal(actual: Graph, expected: Graph) -> None:
    got, want = graph_signature(actual), graph_signature(expected)
    if got != want:
        diff = "\n".join(f"  got:  {g}\n  want: {w}" for g, w in zip(got, want, strict=False) if g != w)
        raise AssertionError(f"graphs differ ({len(got)} vs {len(want)} nodes):\n{diff}")
