"""Symbols through the core's inference: fresh for model inputs, carried by traits and by an
op's ``infer_symbols``, checked against the shape ``infer`` found."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from core_toy_ops import Relu
from irconv.graph import Node
from irconv.graph.symbolic import broadcast_symbol_dim, input_symbols, symbolic_shape
from irconv.ops import Op, Trait
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv.types_symbols import Expr, minimum, sym, value_of

S, T = sym(("s",)), sym(("t",))


def _like_input(node: Node) -> None:
    node.out_port(0).data.set_shape(node.in_port(0).data.get_shape())
    node.out_port(0).data.set_type(node.in_port(0).data.get_type())


@dataclass(eq=False)
class KeepsLayout(Op):
    type = "KeepsLayout"
    version = 1
    traits = frozenset({Trait.LAYOUT_AGNOSTIC})

    def infer(self, node: Node) -> None:
        _like_input(node)


@dataclass(eq=False)
class Reverses(Op):
    """Claims its output reverses the input's dims while ``infer`` keeps them: a wrong rule."""

    type = "Reverses"
    version = 1

    def infer(self, node: Node) -> None:
        _like_input(node)

    def infer_symbols(self, node: Node) -> list:
        dims = input_symbols(node, 0)
        return [None if dims is None else tuple(reversed(dims))]


def test_model_input_dims_get_fresh_symbols_and_static_ones_are_pinned():
    b = GraphBuilder()
    x = b.parameter("x", (None, 3, None))
    infer_graph(b.graph)
    dims = symbolic_shape(x)
    assert dims is not None and all(isinstance(d, Expr) for d in dims)
    assert len({dims[0], dims[2]}) == 2  # two dynamic dims, two symbols
    assert value_of(dims[1]) == 3 and value_of(dims[0]) is None


def test_a_constant_s_dims_are_ints():
    b = GraphBuilder()
    w = b.const(np.zeros((4, 5), np.float32))
    infer_graph(b.graph)
    assert symbolic_shape(w) == (4, 5)


def test_a_layout_agnostic_op_keeps_its_input_s_symbols():
    b = GraphBuilder()
    x = b.parameter("x", (None, None))
    y = b.op(KeepsLayout(), x)
    infer_graph(b.graph)
    assert symbolic_shape(y) == symbolic_shape(x)


def test_an_op_without_a_rule_gets_fresh_symbols():
    b = GraphBuilder()
    x = b.parameter("x", (None, None))
    y = b.op(Relu(), x)
    infer_graph(b.graph)
    dims_x, dims_y = symbolic_shape(x), symbolic_shape(y)
    assert dims_y is not None and dims_x is not None
    assert not set(dims_x) & set(dims_y)


def test_a_rule_that_disagrees_with_inference_loses_to_fresh_symbols():
    b = GraphBuilder()
    x = b.parameter("x", (None, 4))
    y = b.op(Reverses(), x)
    infer_graph(b.graph)
    dims = symbolic_shape(y)
    assert dims is not None
    assert value_of(dims[1]) == 4  # the rule said x's dim 0 here: refused
    assert dims[0] == symbolic_shape(x)[1] or value_of(dims[0]) is None


def test_a_shape_set_outside_inference_reads_as_pinned_symbols():
    b = GraphBuilder()
    x = b.parameter("x", (None, 4))
    y = b.op(KeepsLayout(), x)
    infer_graph(b.graph)
    y.data.set_shape((None, 4))  # as a transform that sets a shape itself
    dims = symbolic_shape(y)
    assert dims is not None and value_of(dims[1]) == 4 and isinstance(dims[1], Expr)  # not the int 4


def test_broadcasting_two_different_symbols_proves_nothing():
    assert broadcast_symbol_dim(S, 1) == S
    assert broadcast_symbol_dim(S, S) == S
    assert broadcast_symbol_dim(S, 5) == 5
    assert broadcast_symbol_dim(S, T) is None  # either may be 1 at run time
    assert broadcast_symbol_dim(sym(("u",), 2), sym(("v",), 2)) is not None  # neither can be 1


def test_broadcasting_a_dim_with_its_own_minimum_gives_the_dim():
    """``x + table[:s]`` of a 512-row table: valid only where ``min(s, 512)`` is ``s`` (or 1)."""
    clipped = minimum(S, 512)
    assert broadcast_symbol_dim(S, clipped) == S
    assert broadcast_symbol_dim(clipped, S) == S
    assert broadcast_symbol_dim(T, clipped) is None
