"""layout.hoist_transposes: a transpose after a single-use Pad/unary op moves above it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import Graph
from irconv.testing import GraphBuilder, run_transform
from irconv_layout.hoist_transposes import HoistTransposes
from irconv_opset import Pad, ReLU, Transpose

TO_NCHW = [0, 3, 1, 2]


def _padded(extra_user: bool = False) -> GraphBuilder:
    b = GraphBuilder()
    x = b.parameter("x", (1, 4, 5, 3))
    pads = b.op(Pad(pad_mode="constant"), x, b.const([0, 1, 2, 0], np.int64), b.const([0, 2, 1, 0], np.int64))
    relu = b.op(ReLU(), pads)
    b.result(b.op(Transpose(), relu, b.const(TO_NCHW, np.int64)), "y")
    if extra_user:
        b.result(relu, "r")
    return b


def test_transpose_moves_to_the_input(
    run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]],
    random_array: Callable[..., np.ndarray],
) -> None:
    x = random_array(1, 4, 5, 3)
    (want,) = run_graph(_padded().graph, [x])
    b = _padded()
    assert run_transform(b.graph, HoistTransposes())
    (transpose,) = b.graph.by_type("Transpose")
    assert transpose.in_port(0).get_source().node.type == "Parameter"
    (got,) = run_graph(b.graph, [x])
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_shared_producer_is_left_alone() -> None:
    b = _padded(extra_user=True)
    assert not run_transform(b.graph, HoistTransposes())
    (transpose,) = b.graph.by_type("Transpose")
    assert transpose.in_port(0).get_source().node.type == "ReLU"
