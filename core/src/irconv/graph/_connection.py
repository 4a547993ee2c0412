"""A connection: one output port and all the input ports it feeds."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irconv.graph._node import Node
    from irconv.graph._port import InPort, OutPort


class Connection:
    """Edits that rewire a tensor while keeping the graph consistent."""

    def __init__(self, source: OutPort) -> None:
        self.source = source

    @property
    def destinations(self) -> list[InPort]:
        return self.source.get_destinations()

    def set_source(self, new_source: OutPort, *, keep_names: bool = True) -> None:
        """Make every destination read from ``new_source`` instead.

        With ``keep_names`` the tensor names move too, so the model's named outputs
        survive a rewrite without any renaming step.
        """
        if new_source == self.source:
            return
        for destination in self.destinations:
            new_source.connect(destination)
        if keep_names:
            for name in self.source.data.names:
                new_source.data.add_name(name)
            self.source.data.names.clear()
        self.source = new_source

    def set_destination(self, destination: InPort) -> None:
        """Feed only ``destination``: current destinations are disconnected."""
        for old in self.destinations:
            old.disconnect()
        self.source.connect(destination)

    def add_destination(self, destination: InPort) -> None:
        self.source.connect(destination)

    def insert_node(self, node: Node) -> None:
        """source -> node.in(0), node.out(0) -> every former destination.

        The tensor names move to the node's output: it is now the tensor consumers see.
        """
        new_source = node.out_port(0)
        for destination in self.destinations:
            new_source.connect(destination)
        self.source.connect(node.in_port(0))
        for name in self.source.data.names:
            new_source.data.add_name(name)
        self.source.data.names.clear()
