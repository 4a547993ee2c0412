"""Builders for the activation-fusion tests: one-input graphs written the way exporters do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from irconv import Graph
from irconv.testing import GraphBuilder
from irconv_opset import Add, Clamp, Exp, Log, Multiply

F = np.float32


def unary(body: Callable[[GraphBuilder, Any], Any], shape: tuple[int, ...] = (2, 3, 8)) -> Callable[[], Graph]:
    """A factory of the graph ``y = body(b, x)`` with one f32 input ``x``."""

    def build() -> Graph:
        b = GraphBuilder()
        x = b.parameter("x", shape)
        b.result(body(b, x), "y")
        return b.graph

    return build


def mul(b: GraphBuilder, *xs: Any, name: str | None = None) -> Any:
    return b.op(Multiply(), *xs, name=name)


def c(b: GraphBuilder, v: float) -> Any:
    """An f32 scalar constant."""
    return b.const(F(v))


def softplus_form(b: GraphBuilder, x: Any) -> Any:
    """log(exp(x) + 1)."""
    return b.op(Log(), b.op(Add(), b.op(Exp(), x), c(b, 1.0)))


def relu6_plus_3(b: GraphBuilder, x: Any) -> Any:
    """min(max(x + 3, 0), 6)."""
    return b.op(Clamp(min=0.0, max=6.0), b.op(Add(), x, c(b, 3.0)))
