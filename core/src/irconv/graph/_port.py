"""Ports and the tensor facts that live on output ports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from irconv.types import ElementType, MaybeShape, Shape
from irconv.types_symbols import SymShape

if TYPE_CHECKING:
    from irconv.graph._connection import Connection
    from irconv.graph._node import Node


@dataclass(slots=True)
class TensorData:
    """What is known about one tensor: shape, element type, constant value, names.

    ``shape_derived`` marks a value computed from a ShapeOf: partial inference may use it,
    constant folding leaves it alone unless a static shape was asked for. ``symbols``: the
    shape's dims as symbolic dims (``irconv.types_symbols``), set by inference beside the
    shape and forgotten whenever the shape is set another way (read them through
    ``irconv.graph.symbolic.symbolic_shape``).
    """

    shape: MaybeShape = None
    element_type: ElementType = ElementType.dynamic
    value: np.ndarray | None = None
    shape_derived: bool = False
    names: list[str] = field(default_factory=list)
    symbols: SymShape | None = None

    def get_shape(self) -> MaybeShape:
        return self.shape

    def set_shape(self, shape: MaybeShape) -> None:
        self.shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        self.symbols = None

    def get_type(self) -> ElementType:
        return self.element_type

    def set_type(self, element_type: ElementType) -> None:
        self.element_type = element_type

    def get_value(self) -> np.ndarray | None:
        return self.value

    def set_value(self, value: np.ndarray | None, *, shape_derived: bool = False) -> None:
        """Record a constant value; shape and element type follow from it."""
        self.value = value
        self.shape_derived = shape_derived if value is not None else False
        if value is not None:
            shape = tuple(int(d) for d in value.shape)
            if shape != self.shape:  # symbols inferred for this very shape stay
                self.symbols = None
            self.shape = shape
            self.element_type = ElementType.from_numpy(value.dtype)

    def get_rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    def static_shape(self) -> Shape:
        """The shape, which must be fully known (raises ``ValueError`` otherwise)."""
        if self.shape is None or any(d is None for d in self.shape):
            raise ValueError(f"shape {self.shape} is not static")
        return self.shape

    def add_name(self, name: str) -> None:
        if name not in self.names:
            self.names.append(name)


class InPort:
    """Input ``idx`` of a node; connected to at most one output port."""

    __slots__ = ("node", "idx")

    def __init__(self, node: Node, idx: int) -> None:
        self.node = node
        self.idx = idx

    def __repr__(self) -> str:
        return f"<in {self.idx} of {self.node.name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InPort) and other.node is self.node and other.idx == self.idx

    def __hash__(self) -> int:
        return hash((self.node.id, self.idx, "in"))

    @property
    def data(self) -> TensorData:
        """The facts of the tensor flowing in (owned by the source output port)."""
        source = self.node.graph._source_of(self)
        if source is None:
            raise ValueError(f"{self!r} is not connected")
        return source.node._output_data(source.idx)

    def is_connected(self) -> bool:
        return self.get_source() is not None

    def constant(self, *, shape_derived: bool) -> np.ndarray | None:
        """The value arriving at this input (``OutPort.constant`` of its source); None when
        unconnected or not known."""
        source = self.get_source()
        return None if source is None else source.constant(shape_derived=shape_derived)

    def get_source(self) -> OutPort | None:
        return self.node.graph._source_of(self)

    def connect(self, source: OutPort) -> None:
        """Connect to ``source``, replacing any current source."""
        source.connect(self)

    def disconnect(self) -> None:
        self.node.graph._disconnect_input(self)

    def get_connection(self) -> Connection:
        from irconv.graph._connection import Connection

        source = self.get_source()
        if source is None:
            raise ValueError(f"{self!r} is not connected")
        return Connection(source)


class OutPort:
    """Output ``idx`` of a node; feeds any number of input ports."""

    __slots__ = ("node", "idx")

    def __init__(self, node: Node, idx: int) -> None:
        self.node = node
        self.idx = idx

    def __repr__(self) -> str:
        return f"<out {self.idx} of {self.node.name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OutPort) and other.node is self.node and other.idx == self.idx

    def __hash__(self) -> int:
        return hash((self.node.id, self.idx, "out"))

    @property
    def data(self) -> TensorData:
        return self.node._output_data(self.idx)

    def constant(self, *, shape_derived: bool) -> np.ndarray | None:
        """This tensor's value when it is known at conversion time, else None: the one way
        extractors, patterns and transforms ask.

        A Const's value, or one partial inference computed. ``shape_derived`` is the
        explicit choice about values computed from a ShapeOf: True accepts them (an
        extractor may specialise on a known shape), False refuses them (a transform that
        builds the value into the IR would pin the model's input shape).
        """
        declared = self.node.op.declared_value()
        if declared is not None:
            return declared
        data = self.data
        if data.value is None or (data.shape_derived and not shape_derived):
            return None
        return data.value

    def get_destinations(self) -> list[InPort]:
        """A snapshot: safe to edit the graph while iterating over it."""
        return self.node.graph._destinations_of(self)

    def connect(self, destination: InPort) -> None:
        self.node.graph._connect(self, destination)

    def disconnect(self) -> None:
        """Disconnect every destination."""
        for destination in self.get_destinations():
            destination.disconnect()

    def get_connection(self) -> Connection:
        from irconv.graph._connection import Connection

        return Connection(self)
