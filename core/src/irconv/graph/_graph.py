"""The graph: one form through the whole pipeline.

Nodes are integer ids carrying a ``Node``; the connections live in an ``Adjacency``
(``inputs[v][k] = (u, j)``: output ``j`` of ``u`` feeds input ``k`` of ``v``; ``users[u]``
lists ``v`` once per such connection).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

from irconv.errors import GraphError
from irconv.graph._adjacency import Adjacency
from irconv.graph._node import Node
from irconv.graph._port import InPort, OutPort
from irconv.graph.meta import GraphMeta
from irconv.ops.op import Op
from irconv.ops.traits import Trait


class Graph:
    """A model: nodes, their connections and the facts on their outputs.

    ``framework`` names the source framework; ``meta`` keeps model-level facts a plugin
    wants to carry to later phases, under typed ``MetaKey``s the plugin declares.
    """

    def __init__(self, name: str = "model", framework: str = "") -> None:
        self.name = name
        self.framework = framework
        self.meta = GraphMeta()
        self._g = Adjacency()
        self._nodes: dict[int, Node] = {}
        self._by_name: dict[str, int] = {}
        self._by_type: dict[str, dict[int, None]] = {}
        self._dirty: dict[int, None] = {}
        self._next_id = 0

    # ----------------------------------------------------------------- nodes
    def mark(self) -> int:
        """A point in the graph's history: ``added_since(mark)`` lists the nodes added after it."""
        return self._next_id

    def added_since(self, mark: int) -> list[Node]:
        """The nodes added after ``mark`` (from ``mark()``) that are still in the graph, in order."""
        return [node for node_id, node in self._nodes.items() if node_id >= mark]

    def add_node(
        self,
        op: Op,
        name: str | None = None,
        inputs: Sequence[OutPort | None] = (),
        *,
        origin: str | None = None,
    ) -> Node:
        """Add a node running ``op``, fed by ``inputs`` in port order (None skips a port).

        The name is made unique by a numeric suffix when taken.
        """
        node_id = self._next_id
        self._next_id += 1
        node = Node(self, node_id, self._unique_name(name or f"{op.type or 'node'}_{node_id}"), op)
        node.origin = origin
        self._nodes[node_id] = node
        self._by_name[node.name] = node_id
        self._by_type.setdefault(op.type, {})[node_id] = None
        self._g.add_node(node_id)
        for idx, source in enumerate(inputs):
            if source is not None:
                self._connect(source, InPort(node, idx))
        self._dirty[node_id] = None
        return node

    def remove_node(self, node: Node) -> None:
        """Remove a node; its outputs must have no users left."""
        users = node.users()
        if users:
            raise GraphError(f"cannot remove {node!r}: still used by {users[:3]}")
        self._forget(node)

    def remove_nodes(self, nodes: Sequence[Node]) -> None:
        """Remove a set of nodes at once; users outside the set are an error."""
        doomed = {n.id for n in nodes}
        for node in nodes:
            outside = [u for u in node.users() if u.node.id not in doomed]
            if outside:
                raise GraphError(f"cannot remove {node!r}: still used by {outside[:3]}")
        for node in nodes:
            self._forget(node)

    def rename(self, node: Node, name: str) -> None:
        del self._by_name[node.name]
        node.name = self._unique_name(name)
        self._by_name[node.name] = node.id

    def node(self, name: str) -> Node:
        try:
            return self._nodes[self._by_name[name]]
        except KeyError:
            raise KeyError(f"no node named {name!r}") from None

    def has_node(self, name: str) -> bool:
        return name in self._by_name

    def nodes(self) -> list[Node]:
        """Every node in creation order (a snapshot)."""
        return list(self._nodes.values())

    def __iter__(self) -> Iterator[Node]:
        return iter(list(self._nodes.values()))

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, node: object) -> bool:
        return isinstance(node, Node) and self._nodes.get(node.id) is node

    def by_type(self, *types: str) -> list[Node]:
        """Nodes whose op has one of ``types``, from the op-type index (a snapshot)."""
        ids: list[int] = []
        for t in types:
            ids.extend(self._by_type.get(t, ()))
        if len(types) > 1:
            ids.sort()
        return [self._nodes[i] for i in ids]

    def has_type(self, *types: str) -> bool:
        """Whether any node's op has one of ``types`` (an index lookup, no snapshot)."""
        return any(self._by_type.get(t) for t in types)

    def parameters(self) -> list[Node]:
        return self.by_type("Parameter")

    def results(self) -> list[Node]:
        return self.by_type("Result")

    # ------------------------------------------------------------ traversal
    def topological_order(self) -> list[Node]:
        """Producers before consumers; stable for a given construction order."""
        return [self._nodes[i] for i in self._kahn(self._nodes)]

    def descendants_order(self, start: Sequence[Node]) -> list[Node]:
        """``start`` and everything downstream of it, in topological order."""
        users = self._g.users
        reached: dict[int, None] = {}
        stack = [n.id for n in start]
        while stack:
            nid = stack.pop()
            if nid in reached:
                continue
            reached[nid] = None
            stack.extend(users[nid])
        return [self._nodes[i] for i in self._kahn(reached)]

    def _kahn(self, members: dict[int, Any]) -> list[int]:
        """Topological order of ``members``, deterministic for a given construction order."""
        # Counted per connection: a node feeding two inputs of another is waited for twice.
        predecessors, users = self._g.predecessors, self._g.users
        waiting = {nid: sum(1 for u in predecessors(nid) if u in members) for nid in members}
        ready = [nid for nid, n in waiting.items() if n == 0]
        ready.reverse()  # pop() from the end takes the oldest first
        order: list[int] = []
        while ready:
            nid = ready.pop()
            order.append(nid)
            for v in users[nid]:
                if v in waiting:
                    waiting[v] -= 1
                    if waiting[v] == 0:
                        ready.append(v)
        if len(order) != len(members):
            cycle = self._g.find_cycle({nid for nid, n in waiting.items() if n > 0})
            names = [self._nodes[u].name for u in cycle]
            raise GraphError(f"graph has a cycle through {names}")
        return order

    def clean_up(self) -> int:
        """Remove nodes that no Result or op with side effects (an Assign to a variable)
        depends on (Parameters stay). Returns how many."""
        live: set[int] = set()
        stack = [n.id for n in self._nodes.values() if n.type == "Result" or n.op.has(Trait.SIDE_EFFECTS)]
        while stack:
            nid = stack.pop()
            if nid in live:
                continue
            live.add(nid)
            stack.extend(self._g.predecessors(nid))
        dead = [n for nid, n in self._nodes.items() if nid not in live and n.type != "Parameter"]
        for node in dead:
            self._forget(node)
        return len(dead)

    # ------------------------------------------------------------ dirtiness
    def mark_dirty(self, node: Node) -> None:
        """Mark a node whose outputs must be inferred again."""
        if node.id in self._nodes:
            self._dirty[node.id] = None

    def unmark_dirty(self, node: Node) -> None:
        """Forget a node's mark once its outputs were inferred again."""
        self._dirty.pop(node.id, None)

    def dirty_marks(self) -> frozenset[int]:
        """Ids of the nodes marked dirty now (to tell which marks a step added)."""
        return frozenset(i for i in self._dirty if i in self._nodes)

    def take_dirty(self) -> list[Node]:
        """Return and clear the nodes marked since the last call."""
        nodes = [self._nodes[i] for i in self._dirty if i in self._nodes]
        self._dirty.clear()
        return nodes

    # ------------------------------------------------- port-level internals
    def _connect(self, source: OutPort, destination: InPort) -> None:
        if source.node.graph is not self or destination.node.graph is not self:
            raise GraphError(f"cannot connect {source!r} to {destination!r}: not in this graph")
        if destination.idx < 0:
            raise GraphError(f"bad input index {destination.idx} on {destination.node!r}")
        v = destination.node.id
        self._g.add_edge(source.node.id, v, destination.idx, source.idx)
        self._dirty[v] = None

    def _disconnect_input(self, destination: InPort) -> None:
        v = destination.node.id
        if self._g.remove_edge(v, destination.idx):
            self._dirty[v] = None

    def _source_of(self, destination: InPort) -> OutPort | None:
        found = self._g.source(destination.node.id, destination.idx)
        return None if found is None else OutPort(self._nodes[found[0]], found[1])

    def _destinations_of(self, source: OutPort) -> list[InPort]:
        nodes = self._nodes
        return [InPort(nodes[v], k) for v, k in self._g.destinations(source.node.id, source.idx)]

    def _input_count(self, node: Node) -> int:
        return len(self._g.inputs[node.id])

    def _retype(self, node: Node, old: Op, new: Op) -> None:
        if old.type != new.type:
            self._by_type[old.type].pop(node.id, None)
            self._by_type.setdefault(new.type, {})[node.id] = None

    def _forget(self, node: Node) -> None:
        self._g.remove_node(node.id)
        del self._nodes[node.id]
        self._by_name.pop(node.name, None)
        self._by_type[node.type].pop(node.id, None)
        self._dirty.pop(node.id, None)
        node.graph = cast(Graph, _DETACHED)  # a stand-in that fails on use

    def _unique_name(self, name: str) -> str:
        if name not in self._by_name:
            return name
        i = 1
        while f"{name}_{i}" in self._by_name:
            i += 1
        return f"{name}_{i}"


class _Detached:
    """Stands in for the graph of a removed node, so stale use fails loudly."""

    def __getattr__(self, item: str) -> Any:
        raise GraphError("this node was removed from its graph")


_DETACHED = _Detached()
