"""layout.wrap_marked: a node marked NHWC computes like the NCHW op on transposed data."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import Graph
from irconv.testing import GraphBuilder, run_transform
from irconv_layout.options import WRAPPED_RANK as WRAPPED
from irconv_layout.wrap_marked import WrapMarked
from irconv_opset import AvgPool, ReLU


def _pool_graph(layout: str | None, shape: tuple[int, ...]) -> GraphBuilder:
    b = GraphBuilder()
    x = b.parameter("x", shape)
    pool = b.node(AvgPool(strides=(2, 2), kernel=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="valid"), x)
    pool.layout = layout
    b.result(b.op(ReLU(), pool.out_port(0)), "y")
    return b


def test_marked_node_is_wrapped_and_matches_nchw(
    run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]],
    random_array: Callable[..., np.ndarray],
) -> None:
    x = random_array(1, 6, 4, 3)
    b = _pool_graph("NHWC", (1, 6, 4, 3))
    assert run_transform(b.graph, WrapMarked())
    assert len(b.graph.by_type("Transpose")) == 2
    assert b.graph.meta[WRAPPED] == 4
    assert b.graph.node("y/sink").in_port(0).get_source().data.get_shape() == (1, 3, 2, 3)
    (got,) = run_graph(b.graph, [x])
    (reference,) = run_graph(_pool_graph(None, (1, 3, 6, 4)).graph, [np.ascontiguousarray(x.transpose(0, 3, 1, 2))])
    np.testing.assert_allclose(got, reference.transpose(0, 2, 3, 1), atol=1e-6)


def test_unmarked_graph_is_unchanged() -> None:
    b = _pool_graph(None, (1, 3, 6, 4))
    assert not run_transform(b.graph, WrapMarked())
    assert b.graph.by_type("Transpose") == []
    assert WRAPPED not in b.graph.meta
