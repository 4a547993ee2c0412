"""The rewriter: graph edits that keep tensor names, drop dead producers and keep facts current.

Every transform edits through one. It infers a node as soon as it is inserted, and after an
edit re-infers the consumers downstream for as long as their facts (shape, element type,
constant value) change, so a rewrite can read ``port.data`` of anything it just built.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from irconv.errors import GraphError
from irconv.graph import Graph, InPort, Node, OutPort
from irconv.graph.infer import node_outputs_reset, try_infer
from irconv.narrow_float import as_array
from irconv.ops import Const, DeferredConst, DeferredProduct, Op, Parameter, Result, Trait

Facts = tuple[Any, ...]


class Rewriter:
    """Edits of one graph. ``modified`` says whether any edit was made.

    ``on_change`` is told about every node an edit created, rewired or re-inferred with
    new facts (the pattern driver uses it to revisit them).
    """

    def __init__(self, graph: Graph, on_change: Callable[[Node], None] | None = None) -> None:
        self.graph = graph
        self.modified = False
        self._on_change = on_change
        self._unnamed: set[int] = set()  # inserted without a name: may take a replaced node's
        # Inside batch(): the nodes to refresh at its end, with their facts before the batch.
        self._deferred: dict[int, tuple[Node, list[Facts]]] | None = None
        # Inside batch(): what each node's last successful inference saw (see ``_Inferred``).
        self._inferred: dict[int, _Inferred] = {}
        self._clock = 0

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Make several edits as one: downstream facts are brought up to date once, at the end.

        Inside, inserted nodes are still inferred at once (their own facts can be read), but
        nothing downstream is re-inferred for the in-between states of a multi-step edit.
        """
        if self._deferred is not None:  # already batching: the outer batch refreshes
            yield
            return
        self._deferred = {}
        try:
            yield
        finally:
            pending, self._deferred = self._deferred, None
            try:
                self._refresh([node for node, _ in pending.values()], {i: facts for i, (_, facts) in pending.items()})
            finally:
                self._inferred.clear()

    # ------------------------------------------------------------ building
    def insert(
        self,
        op: Op,
        inputs: Sequence[OutPort | None] = (),
        *,
        name: str | None = None,
        like: Node | None = None,
    ) -> Node:
        """Add a node fed by ``inputs`` (None skips a port) and infer it.

        ``like`` is the node it stands in for: the new node takes its origin, and its name
        with the op type as suffix unless ``name`` is given.
        """
        auto_name = name is None
        if name is None and like is not None:
            name = f"{like.name}/{op.type}"
        node = self.graph.add_node(op, name, inputs, origin=like.origin or like.name if like else None)
        if auto_name:
            self._unnamed.add(node.id)
        self._refresh([node])
        self.modified = True
        return node

    def op(self, op: Op, *inputs: OutPort | None, like: Node | None = None, name: str | None = None) -> OutPort:
        """``insert`` for a single-output op; returns its output port."""
        return self.insert(op, inputs, name=name, like=like).out_port(0)

    def const(
        self,
        value: Any,
        dtype: Any = None,
        *,
        like: Node | None = None,
        name: str | None = None,
        contiguous: bool = True,
    ) -> OutPort:
        """A Const node holding ``value`` (0-d stays 0-d), made C-contiguous unless
        ``contiguous=False``: then a strided view (a transposed matrix of weights) is kept as
        it is, and the emitter gathers it while writing instead of copying it here.
        A ``DeferredProduct`` becomes a ``DeferredConst``: computed when first read."""
        if name is None and like is not None:
            name = f"{like.name}/const"
        if isinstance(value, DeferredProduct) and dtype is None:
            return self.op(DeferredConst(pending=value), name=name, like=like)
        array = as_array(value, dtype)
        if contiguous and not array.flags.c_contiguous:
            array = array.copy(order="C")
        return self.op(Const(array), name=name, like=like)

    def insert_after(
        self,
        port: OutPort,
        op: Op,
        extra_inputs: Sequence[OutPort | None] = (),
        *,
        name: str | None = None,
        move_names: bool = True,
    ) -> Node:
        """Put a node on ``port``'s tensor: it reads ``port`` (input 0, then ``extra_inputs``)
        and every former consumer reads the node's output 0 instead.

        With ``move_names`` the tensor names move to the new output (what consumers see);
        without, they stay on ``port`` (a model input keeps its name).
        """
        consumers = port.get_destinations()
        node = self.graph.add_node(
            op, name or f"{port.node.name}/{op.type}", [port, *extra_inputs], origin=port.node.origin or port.node.name
        )
        for destination in consumers:
            node.out_port(0).connect(destination)
        if move_names:
            for tensor_name in port.data.names:
                node.out_port(0).data.add_name(tensor_name)
            port.data.names.clear()
        self.modified = True
        self._refresh([node])
        return node

    # ------------------------------------------------------------ editing
    def replace(self, node: Node, new_outputs: OutPort | Sequence[OutPort]) -> None:
        """Make every user of ``node``'s output ``i`` read ``new_outputs[i]``, then erase ``node``.

        Tensor names move to the new outputs (the model's named outputs survive), producers
        left without users are erased too, and consumers are re-inferred. A single new
        output made by this rewriter without an explicit name takes ``node``'s name.
        """
        outputs = [new_outputs] if isinstance(new_outputs, OutPort) else list(new_outputs)
        for port in node.out_ports():
            if port.idx >= len(outputs):
                if port.get_destinations() or port.data.names:
                    raise GraphError(f"replace({node!r}): output {port.idx} is used but has no replacement")
                continue
            if outputs[port.idx].node is node:
                raise GraphError(f"replace({node!r}): a node cannot replace itself")
        consumers: list[Node] = []
        for port, new in zip(node.out_ports(), outputs, strict=False):
            consumers += [d.node for d in port.get_destinations()]
            port.get_connection().set_source(new)
        self._erase_with_dead_producers(node)
        if len(outputs) == 1 and outputs[0].node.id in self._unnamed and outputs[0].node in self.graph:
            self.graph.rename(outputs[0].node, node.name)
            self._unnamed.discard(outputs[0].node.id)
        self.modified = True
        self._refresh(consumers)

    def replace_op(self, node: Node, op: Op) -> None:
        """Give ``node`` a new op, keeping its connections; re-infer it and downstream."""
        node.op = op
        self.modified = True
        self._refresh([node])

    def set_input(self, port: InPort, source: OutPort | None) -> None:
        """Feed ``port`` from ``source`` (None disconnects it); the old producer is erased if
        nothing else uses it; the consumer and downstream are re-inferred."""
        old = port.get_source()
        if source is None:
            port.disconnect()
        else:
            source.connect(port)
        if old is not None and old != source:
            self._erase_if_dead(old.node)
        self.modified = True
        self._refresh([port.node])

    def erase(self, node: Node) -> None:
        """Remove a node nobody uses, and the producers that leaves without users."""
        if node.users():
            raise GraphError(f"cannot erase {node!r}: still used by {node.users()[:3]}")
        self._erase_with_dead_producers(node)
        self.modified = True

    # ------------------------------------------------------------ internals
    def _erase_with_dead_producers(self, node: Node) -> None:
        producers = [p.get_source() for p in node.in_ports()]
        for port in node.in_ports():
            port.disconnect()
        for out in node.out_ports():
            out.data.names.clear()
        self.graph.remove_node(node)
        self._unnamed.discard(node.id)
        for source in producers:
            if source is not None:
                self._erase_if_dead(source.node)

    def _erase_if_dead(self, start: Node) -> None:
        stack = [start]
        while stack:
            node = stack.pop()
            if node not in self.graph or not _removable(node):
                continue
            producers = [p.get_source() for p in node.in_ports()]
            for port in node.in_ports():
                port.disconnect()
            self.graph.remove_node(node)
            stack.extend(source.node for source in producers if source is not None)
            for source in producers:
                if source is not None and source.node in self.graph:
                    self._changed(source.node)  # a use fewer: single-use patterns may match now

    def _refresh(self, start: Iterable[Node], before_batch: dict[int, list[Facts]] | None = None) -> None:
        """Infer ``start``, then every consumer whose inputs' facts changed, until none do.

        A node whose op cannot be inferred yet (a front-phase internal op) stays marked
        dirty; the phase runner infers it with full error reporting. ``before_batch`` holds
        facts from before a batch, to compare against instead of the in-between ones.
        """
        if self._deferred is not None:
            for node in start:
                if node in self.graph:
                    if node.id not in self._deferred:
                        self._deferred[node.id] = (node, [_facts(p) for p in node.out_ports()])
                    self._infer(node)  # its own facts now; downstream when the batch ends
            return
        queue = deque(n for n in start if n in self.graph)
        queued = {n.id for n in queue}
        while queue:
            node = queue.popleft()
            queued.discard(node.id)
            if node not in self.graph:
                continue
            before = [_facts(p) for p in node.out_ports()]
            if before_batch is not None and node.id in before_batch:
                before = before_batch.pop(node.id)
            if not (self._still_current(node) or self._infer(node)):
                self.graph.mark_dirty(node)
                continue
            self.graph.unmark_dirty(node)
            self._changed(node)
            after = [_facts(p) for p in node.out_ports()]
            if _same_facts(before, after):
                continue
            for user in node.users():
                if user.node.id not in queued:
                    queued.add(user.node.id)
                    queue.append(user.node)

    def _infer(self, node: Node) -> bool:
        """Infer ``node`` afresh; inside a batch, remember what it read (``_Inferred``)."""
        node_outputs_reset(node)
        if not try_infer(node):
            self._inferred.pop(node.id, None)
            return False
        self._clock += 1
        if self._deferred is not None or self._inferred:
            self._inferred[node.id] = _Inferred(self._clock, node.op, _sources(node))
        return True

    def _still_current(self, node: Node) -> bool:
        """Whether the facts a batch inferred for ``node`` still hold at its end: same op, same
        sources, none of them inferred again since (a node the batch built and then moved
        is not inferred twice)."""
        seen = self._inferred.get(node.id)
        if seen is None or node.op is not seen.op or _sources(node) != seen.sources:
            return False
        for source in seen.sources:
            later = None if source is None else self._inferred.get(source.node.id)
            if later is not None and later.clock > seen.clock:
                return False
        return True

    def _changed(self, node: Node) -> None:
        if self._on_change is not None:
            self._on_change(node)


@dataclass(frozen=True, slots=True)
class _Inferred:
    """A node's inference inside a batch: when (a counter), with which op, from which sources."""

    clock: int
    op: Op
    sources: tuple[OutPort | None, ...]


def _sources(node: Node) -> tuple[OutPort | None, ...]:
    return tuple(port.get_source() for port in node.in_ports())


def _removable(node: Node) -> bool:
    """Dead: no users. Tensor names do not keep a node alive (ONNX names every tensor; a
    model output has its Result as a user)."""
    if isinstance(node.op, (Parameter, Result)) or node.op.has(Trait.SIDE_EFFECTS):
        return False
    return not node.users()


def _facts(port: OutPort) -> Facts:
    data = port.data
    return (data.shape, data.element_type, data.value)


def _same_facts(before: list[Facts], after: list[Facts]) -> bool:
    if len(before) != len(after):
        return False
    for (shape_a, type_a, value_a), (shape_b, type_b, value_b) in zip(before, after, strict=True):
        if shape_a != shape_b or type_a is not type_b:
            return False
        if value_a is value_b:
            continue
        if value_a is None or value_b is None:
            return False
        if value_a.dtype != value_b.dtype or not np.array_equal(value_a, value_b):
            return False
    return True
