"""tempered.merge_divisions on small graphs: fires on constants, leaves the rest alone."""

from __future__ import annotations

import numpy as np
from irconv.testing import GraphBuilder, run_transform
from irconv_opset import Divide, ReLU
from irconv_tempered.merge_divisions import MergeDivisions


def test_two_constant_divisions_become_one() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (2, 3))
    inner = b.op(Divide(), x, b.const(np.float32(2.0)))
    b.result(b.op(Divide(), inner, b.const(np.float32(4.0))), "y")
    assert run_transform(b.graph, MergeDivisions())
    (divide,) = b.graph.by_type("Divide")
    assert float(divide.in_port(1).constant(shape_derived=False)) == 8.0
    assert divide.in_port(0).get_source() == x


def test_a_division_by_a_tensor_is_left_alone() -> None:
    b = GraphBuilder()
    x, d = b.parameter("x", (2, 3)), b.parameter("d", (2, 3))
    b.result(b.op(Divide(), b.op(Divide(), x, d), b.const(np.float32(4.0))), "y")
    assert not run_transform(b.graph, MergeDivisions())
    assert len(b.graph.by_type("Divide")) == 2


def test_a_shared_inner_division_is_left_alone() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (2, 3))
    inner = b.op(Divide(), x, b.const(np.float32(2.0)))
    b.result(b.op(Divide(), inner, b.const(np.float32(4.0))), "y")
    b.result(b.op(ReLU(), inner), "z")
    assert not run_transform(b.graph, MergeDivisions())
