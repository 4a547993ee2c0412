"""Tensor names for the model's inputs and outputs that the graph left unnamed.

The runtime finds inputs and outputs by tensor name, so every Parameter output and every
tensor feeding a Result gets one: its own names when it has any, else the producing node's
name (``name:port`` for a node with several outputs) unless another tensor already uses it.
The graph itself is not changed.
"""

from __future__ import annotations

from irconv.graph import Graph, OutPort


def boundary_names(graph: Graph) -> dict[tuple[int, int], list[str]]:
    """(node id, output index) -> the name to write, for unnamed model inputs and outputs."""
    taken = {name for node in graph.nodes() for port in node.out_ports() for name in port.data.names}
    boundary: list[OutPort] = [node.out_port(0) for node in graph.parameters()]
    for result in graph.results():
        source = result.in_port(0).get_source()
        if source is not None:
            boundary.append(source)
    fallback: dict[tuple[int, int], list[str]] = {}
    for port in boundary:
        key = (port.node.id, port.idx)
        if port.data.names or key in fallback:
            continue
        name = port.node.name if port.node.num_outputs() == 1 else f"{port.node.name}:{port.idx}"
        if name not in taken:
            taken.add(name)
            fallback[key] = [name]
    return fallback
