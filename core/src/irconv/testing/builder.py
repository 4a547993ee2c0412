"""A tiny builder for test graphs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from irconv.graph import Graph, Node, OutPort
from irconv.ops import Const, Op, Parameter, Result
from irconv.types import ElementType


class GraphBuilder:
    """Build small graphs in a few lines::

    b = GraphBuilder()
    x = b.parameter("x", (1, 3, 8, 8))
    b.result(b.op(ReLU(), x), "y")
    """

    def __init__(self, name: str = "test", framework: str = "") -> None:
        self.graph = Graph(name, framework)

    def parameter(
        self,
        name: str,
        shape: Sequence[int | None] | None,
        element_type: ElementType | str = ElementType.f32,
        dim_names: Sequence[str | None] | None = None,
    ) -> OutPort:
        et = element_type if isinstance(element_type, ElementType) else ElementType.parse(element_type)
        names = tuple(dim_names) if dim_names is not None else None
        node = self.graph.add_node(Parameter(tuple(shape) if shape is not None else None, et, dim_names=names), name)
        node.out_port(0).data.add_name(name)
        return node.out_port(0)

    def const(self, value: Any, dtype: Any = None, name: str | None = None) -> OutPort:
        return self.graph.add_node(Const(np.asarray(value, dtype=dtype)), name).out_port(0)

    def node(self, op: Op, *inputs: OutPort | None, name: str | None = None) -> Node:
        return self.graph.add_node(op, name, inputs)

    def op(self, op: Op, *inputs: OutPort | None, name: str | None = None) -> OutPort:
        return self.node(op, *inputs, name=name).out_port(0)

    def result(self, port: OutPort, name: str | None = None) -> Node:
        if name is not None:
            port.data.add_name(name)
        return self.graph.add_node(Result(), f"{name}/sink" if name else None, [port])
