"""The graph's connections: two dicts of dicts, nothing more.

``succ[u][v]`` and ``pred[v][u]`` are the same ``{input index: output index}`` dict for
the connections from node ``u`` to node ``v`` (an input has one source, so the input index
is the key). This replaced a ``networkx.MultiDiGraph``: the graph only ever used its
adjacency dicts, and importing networkx was a fifth of a small conversion's CPU time
while its edge bookkeeping (an attribute dict per edge) dominated adding nodes.
"""

from __future__ import annotations


class Adjacency:
    __slots__ = ("pred", "succ")

    def __init__(self) -> None:
        self.pred: dict[int, dict[int, dict[int, int]]] = {}
        self.succ: dict[int, dict[int, dict[int, int]]] = {}

    def add_node(self, n: int) -> None:
        if n not in self.succ:
            self.succ[n] = {}
            self.pred[n] = {}

    def add_edge(self, u: int, v: int, in_idx: int, out_idx: int) -> None:
        """Connect output ``out_idx`` of ``u`` to input ``in_idx`` of ``v``."""
        ports = self.succ[u].get(v)
        if ports is None:
            ports = self.succ[u][v] = self.pred[v][u] = {}
        ports[in_idx] = out_idx

    def remove_edge(self, u: int, v: int, in_idx: int) -> None:
        ports = self.succ[u][v]
        del ports[in_idx]
        if not ports:
            del self.succ[u][v]
            del self.pred[v][u]

    def remove_node(self, n: int) -> None:
        for u in self.pred.pop(n):
            del self.succ[u][n]
        for v in self.succ.pop(n):
            del self.pred[v][n]

    def find_cycle(self, members: set[int]) -> list[int]:
        """Nodes of one cycle among ``members`` (each left with an unmet predecessor in a
        topological sort, so every one of them lies on or behind a cycle)."""
        # Walk backwards through predecessors inside ``members``: the walk must revisit a node.
        start = next(iter(members))
        path: dict[int, None] = {}
        node = start
        while node not in path:
            path[node] = None
            node = next(u for u in self.pred[node] if u in members)
        order = list(path)
        cycle = order[order.index(node) :]
        cycle.reverse()  # producers first
        return cycle
