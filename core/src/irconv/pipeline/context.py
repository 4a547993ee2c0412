"""What the core hands to extractors, transforms and emitters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from irconv.errors import ConversionError
from irconv.graph import Graph, Node, OutPort
from irconv.ops import Const, Op
from irconv.pipeline.options import ConversionOptions

if TYPE_CHECKING:
    from irconv.pipeline.output import AtomicFiles
    from irconv.plugins.registry import Registry


class ExtractContext:
    """Helpers for an extractor building opset ops in place of one framework node.

    New nodes are named after the framework node (``<name>/<suffix>``) so the IR still
    reads like the source model.
    """

    def __init__(self, graph: Graph, node: Node, options: ConversionOptions, registry: Registry) -> None:
        self.graph = graph
        self.node = node
        self.options = options
        self.registry = registry
        self.inputs: list[OutPort | None] = [p.get_source() for p in node.in_ports()]

    def input(self, idx: int) -> OutPort:
        """The tensor at input ``idx``, which must be connected."""
        if idx >= len(self.inputs) or self.inputs[idx] is None:
            raise ConversionError(f"node {self.node.name!r} ({self.node.type}): input {idx} is missing")
        source = self.inputs[idx]
        assert source is not None
        return source

    def has_input(self, idx: int) -> bool:
        return idx < len(self.inputs) and self.inputs[idx] is not None

    def input_value(self, idx: int) -> np.ndarray | None:
        """The input's value when it comes straight from a Const, else None."""
        if not self.has_input(idx):
            return None
        source = self.input(idx)
        op = source.node.op
        return op.value if isinstance(op, Const) else None

    def add(self, op: Op, inputs: Sequence[OutPort | None], suffix: str | None = None) -> Node:
        """Add a helper node named ``<framework node>/<suffix or op type>``."""
        name = f"{self.node.name}/{suffix or op.type}"
        return self.graph.add_node(op, name, inputs, origin=self.node.name)

    def op(self, op: Op, *inputs: OutPort | None, suffix: str | None = None) -> OutPort:
        """Add a single-output helper node and return its output port."""
        return self.add(op, inputs, suffix).out_port(0)

    def const(self, value: Any, dtype: Any = None, suffix: str = "const") -> OutPort:
        """A Const helper node holding ``value`` (0-d stays 0-d)."""
        return self.op(Const(np.asarray(value, dtype=dtype)), suffix=suffix)


@dataclass
class TransformContext:
    """Handed to each transform: the options and the registry of installed plugins."""

    options: ConversionOptions
    registry: Registry
    notes: list[str] = field(default_factory=list)

    def note(self, message: str) -> None:
        """Report something the user should know (printed after conversion)."""
        self.notes.append(message)


@dataclass
class EmitContext:
    """Handed to an emitter: options, where to open output files, and a notes list."""

    options: ConversionOptions
    files: AtomicFiles
    notes: list[str] = field(default_factory=list)

    def open(self, path: Any, mode: str = "wb") -> IO[Any]:
        """Open an output file under a temporary name; renamed when the whole emit succeeds."""
        return self.files.open(path, mode)

    def note(self, message: str) -> None:
        self.notes.append(message)
