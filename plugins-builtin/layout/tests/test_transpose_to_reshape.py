"""layout.transpose_to_reshape: moving only unit dims is a reshape; real moves stay."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import Graph
from irconv.testing import GraphBuilder, run_transform
from irconv_layout.transpose_to_reshape import TransposeToReshape
from irconv_opset import Transpose


def _graph(shape: tuple[int | None, ...]) -> GraphBuilder:
    b = GraphBuilder()
    x = b.parameter("x", shape)
    b.result(b.op(Transpose(), x, b.const([0, 3, 1, 2], np.int64)), "y")
    return b


def test_unit_dims_become_reshape(
    run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]],
    random_array: Callable[..., np.ndarray],
) -> None:
    x = random_array(2, 1, 1, 5)
    (want,) = run_graph(_graph((2, 1, 1, 5)).graph, [x])
    b = _graph((None, 1, 1, 5))
    assert run_transform(b.graph, TransposeToReshape())
    assert b.graph.by_type("Transpose") == []
    (reshape,) = b.graph.by_type("Reshape")
    target = reshape.in_port(1).constant(shape_derived=False)
    assert target is not None and target.tolist() == [0, -1, 1, 1]  # batch copied: still reshapeable
    (got,) = run_graph(b.graph, [x])
    np.testing.assert_array_equal(got, want)


def test_real_move_stays() -> None:
    b = _graph((1, 2, 2, 5))
    assert not run_transform(b.graph, TransposeToReshape())
    assert len(b.graph.by_type("Transpose")) == 1
