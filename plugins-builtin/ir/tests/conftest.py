"""Shared fixtures of the IR plugin's tests: tiny local ops so tests do not wait on the opset."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from irconv.graph import Node
from irconv.ops import Op


@dataclass(eq=False)
class PassThrough(Op):
    """An elementwise unary op of opset1 whose type is chosen per subclass."""

    def infer(self, node: Node) -> None:
        data = node.in_port(0).data
        node.out_port(0).data.set_shape(data.get_shape())
        node.out_port(0).data.set_type(data.get_type())


@dataclass(eq=False)
class LocalReLU(PassThrough):
    type = "ReLU"
    version = 1


@dataclass(eq=False)
class LocalAdd(Op):
    """Add-1 with numpy broadcast shapes (static only: enough for these tests)."""

    type = "Add"
    version = 1
    auto_broadcast: str = "numpy"

    def infer(self, node: Node) -> None:
        a, b = node.in_port(0).data, node.in_port(1).data
        sa, sb = a.get_shape(), b.get_shape()
        if sa is None or sb is None:
            node.out_port(0).data.set_shape(None)
        else:
            rank = max(len(sa), len(sb))
            sa = (1,) * (rank - len(sa)) + tuple(sa)
            sb = (1,) * (rank - len(sb)) + tuple(sb)
            node.out_port(0).data.set_shape(tuple(x if y == 1 else y if x == 1 else x for x, y in zip(sa, sb)))
        node.out_port(0).data.set_type(a.get_type())


@pytest.fixture
def relu_op() -> type[Op]:
    return LocalReLU


@pytest.fixture
def add_op() -> type[Op]:
    return LocalAdd
