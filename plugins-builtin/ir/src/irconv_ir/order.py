"""The order layers are written in: deterministic, topological, inputs first, outputs last."""

from __future__ import annotations

import heapq

from irconv.errors import ConversionError, quoted
from irconv.graph import Graph, Node, OutPort


def layer_order(graph: Graph, sources: dict[int, list[OutPort]] | None = None) -> list[Node]:
    """Parameters (by node id), then the other nodes in topological order, then Results.

    Among ready nodes the lowest node id goes first (Kahn's algorithm with a heap), so the
    order depends only on how the graph was built, never on dict or hash order. When the
    node ids already are a topological order (a graph read back from an IR) the order is
    exactly the id order, which is what makes emit -> read -> emit reproduce the same file.
    ``sources`` (node id -> the output ports feeding its inputs) saves looking them up again.
    """
    nodes = graph.nodes()
    parameters = [n for n in nodes if n.type == "Parameter"]
    results = [n for n in nodes if n.type == "Result"]
    middle = {n.id: n for n in nodes if n.type not in ("Parameter", "Result")}

    waiting: dict[int, int] = {}
    users: dict[int, list[int]] = {}
    for node in middle.values():
        if sources is not None:
            producers = {source.node.id for source in sources[node.id]}
        else:
            producers = {source.node.id for p in node.in_ports() if (source := p.get_source()) is not None}
        inner = [pid for pid in producers if pid in middle]
        waiting[node.id] = len(inner)
        for pid in inner:
            users.setdefault(pid, []).append(node.id)

    ready = [nid for nid, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    ordered: list[Node] = []
    while ready:
        nid = heapq.heappop(ready)
        ordered.append(middle[nid])
        for uid in users.get(nid, ()):
            waiting[uid] -= 1
            if waiting[uid] == 0:
                heapq.heappush(ready, uid)
    if len(ordered) != len(middle):
        stuck = sorted(nid for nid, count in waiting.items() if count > 0)
        names = ", ".join(middle[nid].name for nid in stuck[:5])
        raise ConversionError(f"graph {quoted(graph.name)} has a cycle; it runs through nodes such as {names}")
    return parameters + ordered + results
