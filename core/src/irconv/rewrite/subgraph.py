"""Sub-graph replacement: select a framework sub-graph, replace it by one op.

The legacy converter's "sub-graph replacement" and "front replacement from config": a
model computes something with many small ops (a block exported op by op) that one op
expresses better — or only one op can express (a custom op the runtime implements).
A ``SubgraphReplacement`` transform says *which* sub-graphs (``subgraphs``) and *what*
replaces each one (``replace``); this module finds them and does the rewiring:

- ``by_scope(graph, "block")``: the nodes named ``block/...`` (TensorFlow name scopes,
  Keras layer names, ONNX exporters' ``/block/...`` names after the leading ``/``);
- ``between(graph, ["x"], ["y"])``: every node on a path from the start tensors to the
  end tensors (the start tensors themselves stay outside).

Constants used only inside are part of the sub-graph. ``Subgraph.inputs`` are the tensors
it reads from outside, ``outputs`` the tensors read outside it; ``replace`` returns one
new tensor per output, and the old nodes are erased, tensor names moving to the new
outputs. A replacement checks the sub-graph is what it expects with the core's patterns
(``match_at``) before rewriting, so a scope that holds something else is left alone or
reported, never silently rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from irconv.contract.records import Transform
from irconv.errors import ConversionError, UserError
from irconv.graph import Graph, Node, OutPort
from irconv.graph.tensors import find_tensor
from irconv.rewrite.rewriter import Rewriter

if TYPE_CHECKING:
    from irconv.contract.context import TransformContext

_BOUNDARY = ("Parameter", "Result")


@dataclass
class Subgraph:
    """Nodes of one selected sub-graph (producers first) and the tensors crossing its border."""

    name: str
    nodes: list[Node]
    inputs: list[OutPort] = field(default_factory=list)
    outputs: list[OutPort] = field(default_factory=list)

    def __contains__(self, node: object) -> bool:
        return isinstance(node, Node) and any(node.id == n.id and node.graph is n.graph for n in self.nodes)

    def compute_nodes(self) -> list[Node]:
        """The nodes that are not constants."""
        return [n for n in self.nodes if n.type != "Const"]


def by_scope(graph: Graph, scope: str) -> Subgraph | None:
    """The nodes named ``scope`` or ``scope/...`` (a leading ``/`` is ignored); None if there are none."""
    wanted = scope.strip("/")
    prefix = wanted + "/"
    inside = [
        n
        for n in graph.topological_order()
        if n.type not in _BOUNDARY and (n.name.lstrip("/") == wanted or n.name.lstrip("/").startswith(prefix))
    ]
    return _bordered(wanted, inside) if inside else None


def between(graph: Graph, starts: Sequence[str], ends: Sequence[str]) -> Subgraph:
    """The nodes on paths from the ``starts`` tensors to the ``ends`` tensors (by tensor name)."""
    start_ports = [_tensor(graph, name) for name in starts]
    end_ports = [_tensor(graph, name) for name in ends]
    stop = {(p.node.id, p.idx) for p in start_ports}
    found: dict[int, Node] = {}
    stack = [p.node for p in end_ports if (p.node.id, p.idx) not in stop]
    while stack:
        node = stack.pop()
        if node.id in found:
            continue
        if node.type in _BOUNDARY:
            raise UserError(
                f"the sub-graph {', '.join(starts)} -> {', '.join(ends)} reaches the model input {node.name!r} "
                "without passing a start tensor; add that input to the start tensors"
            )
        found[node.id] = node
        for port in node.in_ports():
            source = port.get_source()
            if source is not None and (source.node.id, source.idx) not in stop:
                stack.append(source.node)
    order = [n for n in graph.topological_order() if n.id in found]
    return _bordered(f"{','.join(starts)}:{','.join(ends)}", order)


def _tensor(graph: Graph, name: str) -> OutPort:
    port = find_tensor(graph, name)
    if port is None:
        raise UserError(f"no tensor named {name!r} in the model (sub-graph boundaries are tensor names or node:port)")
    return port


def _bordered(name: str, nodes: list[Node]) -> Subgraph:
    ids = {n.id for n in nodes}
    # Constants feeding only the sub-graph belong to it.
    for node in list(nodes):
        for port in node.in_ports():
            source = port.get_source()
            if (
                source is not None
                and source.node.id not in ids
                and source.node.type == "Const"
                and all(user.node.id in ids for user in source.get_destinations())
            ):
                ids.add(source.node.id)
                nodes.insert(0, source.node)
    inputs: list[OutPort] = []
    outputs: list[OutPort] = []
    for node in nodes:
        for port in node.in_ports():
            source = port.get_source()
            if source is not None and source.node.id not in ids and source not in inputs:
                inputs.append(source)
        for out in node.out_ports():
            if any(user.node.id not in ids for user in out.get_destinations()):
                outputs.append(out)
    return Subgraph(name, nodes, inputs, outputs)


def replace_subgraph(rw: Rewriter, sub: Subgraph, new_outputs: Sequence[OutPort]) -> None:
    """Users outside ``sub`` read ``new_outputs[i]`` instead of ``sub.outputs[i]``; ``sub`` is erased."""
    if len(new_outputs) != len(sub.outputs):
        raise ConversionError(
            f"sub-graph {sub.name!r} has {len(sub.outputs)} output(s); the replacement gave {len(new_outputs)}"
        )
    with rw.batch():
        for old, new in zip(sub.outputs, new_outputs, strict=True):
            for name in list(old.data.names):
                new.data.add_name(name)
            old.data.names.clear()
            for user in old.get_destinations():
                if user.node not in sub:
                    rw.set_input(user, new)
        for node in reversed(sub.nodes):
            if node in rw.graph and not node.users():
                for port in node.out_ports():
                    port.data.names.clear()  # inner tensor names (ONNX names every tensor)
                rw.erase(node)


class SubgraphReplacement(Transform):
    """A transform that replaces selected sub-graphs by what ``replace`` builds.

    Subclasses set ``id`` and implement ``subgraphs`` (usually from an option: the scopes
    or start/end tensors the user named) and ``replace`` (None leaves a sub-graph alone).
    Sub-graphs touching a node the user froze are skipped.
    """

    def subgraphs(self, graph: Graph, ctx: TransformContext) -> Iterable[Subgraph]:
        raise NotImplementedError

    def replace(self, sub: Subgraph, rw: Rewriter) -> Sequence[OutPort] | None:
        raise NotImplementedError

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        rw = Rewriter(graph)
        for sub in list(self.subgraphs(graph, ctx)):
            if any(ctx.is_frozen(node) for node in sub.nodes):
                ctx.note(f"{self.id}: sub-graph {sub.name!r} holds frozen nodes; left as it is")
                continue
            new_outputs = self.replace(sub, rw)
            if new_outputs is not None:
                replace_subgraph(rw, sub, new_outputs)
        return rw.modified
