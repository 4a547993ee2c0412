"""A node of the graph: a named instance of an ``Op`` with ports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irconv.graph._port import InPort, OutPort, TensorData
from irconv.ops.op import Op

if TYPE_CHECKING:
    from irconv.graph._graph import Graph


class Node:
    """One operation in a graph.

    ``layout`` is a front end's statement about the data layout the op computes in
    (``"NHWC"`` for a TensorFlow convolution); the layout plugin reads it.
    ``origin`` names the source-framework node it came from, for messages.
    """

    __slots__ = ("graph", "id", "name", "_op", "_outputs", "layout", "origin")

    def __init__(self, graph: Graph, node_id: int, name: str, op: Op) -> None:
        self.graph = graph
        self.id = node_id
        self.name = name
        self._op = op
        self._outputs: list[TensorData] = []
        self.layout: str | None = None
        self.origin: str | None = None

    def __repr__(self) -> str:
        return f"<{self.type} {self.name!r}>"

    @property
    def op(self) -> Op:
        return self._op

    @op.setter
    def op(self, op: Op) -> None:
        """Swap the op (keeps connections); the node is marked for re-inference."""
        self.graph._retype(self, self._op, op)
        self._op = op
        self.graph.mark_dirty(self)

    @property
    def type(self) -> str:
        return self._op.type

    def in_port(self, idx: int) -> InPort:
        return InPort(self, idx)

    def out_port(self, idx: int = 0) -> OutPort:
        if idx < 0:
            raise IndexError(f"{self!r} has no output port {idx}")
        return OutPort(self, idx)

    def in_ports(self) -> list[InPort]:
        """Every input port up to the highest connected one, in order."""
        return [InPort(self, i) for i in range(self.graph._input_count(self))]

    def out_ports(self) -> list[OutPort]:
        return [OutPort(self, i) for i in range(self.num_outputs())]

    def num_inputs(self) -> int:
        return self.graph._input_count(self)

    def num_outputs(self) -> int:
        return max(self._op.num_outputs(), len(self._outputs))

    def has_input(self, idx: int) -> bool:
        return self.in_port(idx).get_source() is not None

    def users(self) -> list[InPort]:
        """Every input port fed by any output of this node (a snapshot)."""
        return [d for port in self.out_ports() for d in port.get_destinations()]

    def _output_data(self, idx: int) -> TensorData:
        outputs = self._outputs
        if idx < len(outputs):
            return outputs[idx]
        while len(outputs) <= idx:
            outputs.append(TensorData())
        return outputs[idx]
