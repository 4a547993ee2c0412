"""The graph's connections: per node, its inputs in port order and its users.

``inputs[v][k]`` is ``(u, j)`` when output ``j`` of node ``u`` feeds input ``k`` of ``v``
(None for an unconnected port below the highest connected one; the list never ends in
None, so its length is the node's input count). ``users[u]`` lists ``v`` once per
connection from ``u`` to ``v``.

An input has one source, so a list indexed by port answers "what feeds this input" in
one step: the dict-of-dicts this replaced searched a node's predecessors for the port,
the most called function of a conversion. Lists also cost a third of the memory of
per-connection dicts (a 300k-node model spent ~280 MiB on them).
"""

from __future__ import annotations

from collections.abc import Iterator

Source = tuple[int, int]


class Adjacency:
    __slots__ = ("inputs", "users")

    def __init__(self) -> None:
        self.inputs: dict[int, list[Source | None]] = {}
        self.users: dict[int, list[int]] = {}

    def add_node(self, n: int) -> None:
        if n not in self.inputs:
            self.inputs[n] = []
            self.users[n] = []

    def source(self, v: int, in_idx: int) -> Source | None:
        """``(u, j)`` feeding input ``in_idx`` of ``v``, or None."""
        ins = self.inputs[v]
        return ins[in_idx] if 0 <= in_idx < len(ins) else None

    def add_edge(self, u: int, v: int, in_idx: int, out_idx: int) -> None:
        """Connect output ``out_idx`` of ``u`` to input ``in_idx`` of ``v`` (replacing its source)."""
        self.remove_edge(v, in_idx)
        ins = self.inputs[v]
        if in_idx >= len(ins):
            ins.extend([None] * (in_idx + 1 - len(ins)))
        ins[in_idx] = (u, out_idx)
        self.users[u].append(v)

    def remove_edge(self, v: int, in_idx: int) -> bool:
        """Disconnect input ``in_idx`` of ``v``; whether it was connected."""
        ins = self.inputs[v]
        source = ins[in_idx] if 0 <= in_idx < len(ins) else None
        if source is None:
            return False
        u = source[0]
        ins[in_idx] = None
        _drop_unconnected_tail(ins)
        self.users[u].remove(v)
        return True

    def remove_node(self, n: int) -> None:
        for entry in self.inputs.pop(n):
            if entry is not None and entry[0] != n:
                self.users[entry[0]].remove(n)
        for v in dict.fromkeys(self.users.pop(n)):
            if v == n:
                continue
            ins = self.inputs[v]
            for k, entry in enumerate(ins):
                if entry is not None and entry[0] == n:
                    ins[k] = None
            _drop_unconnected_tail(ins)

    def predecessors(self, v: int) -> Iterator[int]:
        """The node feeding each connected input of ``v`` (repeated per connection)."""
        return (entry[0] for entry in self.inputs[v] if entry is not None)

    def destinations(self, u: int, out_idx: int) -> Iterator[tuple[int, int]]:
        """``(v, k)`` for every input ``k`` of ``v`` that output ``out_idx`` of ``u`` feeds,
        users in the order they were connected, ports in order."""
        wanted = (u, out_idx)
        for v in dict.fromkeys(self.users[u]):
            for k, entry in enumerate(self.inputs[v]):
                if entry == wanted:
                    yield v, k

    def find_cycle(self, members: set[int]) -> list[int]:
        """Nodes of one cycle among ``members`` (each left with an unmet predecessor in a
        topological sort, so every one of them lies on or behind a cycle)."""
        # Walk backwards through predecessors inside ``members``: the walk must revisit a node.
        start = next(iter(members))
        path: dict[int, None] = {}
        node = start
        while node not in path:
            path[node] = None
            node = next(u for u in self.predecessors(node) if u in members)
        order = list(path)
        cycle = order[order.index(node) :]
        cycle.reverse()  # producers first
        return cycle


def _drop_unconnected_tail(ins: list[Source | None]) -> None:
    """Keep a node's input list ending on a connected port (its length is the input count)."""
    while ins and ins[-1] is None:
        ins.pop()
