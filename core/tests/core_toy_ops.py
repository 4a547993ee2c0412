"""Minimal ops for testing the core without the opset plugin."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from irconv.graph import Node
from irconv.ops import Op, Trait, attr
from irconv.types import ElementType


def _same_as_input(node: Node) -> None:
    data = node.in_port(0).data
    out = node.out_port(0).data
    out.set_shape(data.get_shape())
    out.set_type(data.get_type())


@dataclass(eq=False)
class Relu(Op):
    type = "ReLU"
    version = 1

    def infer(self, node: Node) -> None:
        _same_as_input(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.maximum(inputs[0], 0)]


@dataclass(eq=False)
class Sigmoid(Op):
    type = "Sigmoid"
    version = 1

    def infer(self, node: Node) -> None:
        _same_as_input(node)


@dataclass(eq=False)
class Add(Op):
    type = "Add"
    version = 1
    auto_broadcast: str = attr("numpy")

    def infer(self, node: Node) -> None:
        a, b = node.in_port(0).data.get_shape(), node.in_port(1).data.get_shape()
        shape = (
            None
            if a is None or b is None
            else np.broadcast_shapes(tuple(1 if d is None else d for d in a), tuple(1 if d is None else d for d in b))
        )
        node.out_port(0).data.set_shape(shape)
        node.out_port(0).data.set_type(node.in_port(0).data.get_type())

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [inputs[0] + inputs[1]]


@dataclass(eq=False)
class Multiply(Add):
    type = "Multiply"

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [inputs[0] * inputs[1]]


@dataclass(eq=False)
class ShapeOf(Op):
    type = "ShapeOf"
    version = 3
    traits = frozenset({Trait.SHAPE_ONLY})

    def infer(self, node: Node) -> None:
        shape = node.in_port(0).data.get_shape()
        out = node.out_port(0).data
        if shape is not None and all(d is not None for d in shape):
            out.set_value(np.array(shape, np.int64), shape_derived=True)
        else:
            out.set_shape(None if shape is None else (len(shape),))
            out.set_type(ElementType.i64)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.array(np.asarray(inputs[0]).shape, np.int64)]


@dataclass(eq=False)
class Reshape(Op):
    type = "Reshape"
    version = 1
    special_zero: bool = attr(False)

    def infer(self, node: Node) -> None:
        target = node.in_port(1).data.get_value()
        out = node.out_port(0).data
        out.set_type(node.in_port(0).data.get_type())
        out.set_shape(None if target is None else tuple(int(d) for d in target))


@dataclass(eq=False)
class Split2(Op):
    """Two outputs, to test multi-output ports."""

    type = "Split2"
    version = 1
    outputs = 2

    def infer(self, node: Node) -> None:
        for i in range(2):
            node.out_port(i).data.set_shape(node.in_port(0).data.get_shape())
            node.out_port(i).data.set_type(node.in_port(0).data.get_type())


@dataclass(eq=False)
class Broken(Op):
    type = "Broken"
    version = 1

    def infer(self, node: Node) -> None:
        raise ValueError("rank mismatch")
