"""layout.matmul_leading_dims, and transposes sinking through a MatMul over channels."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import Graph
from irconv.testing import GraphBuilder, assert_graphs_equal, run_transform
from irconv_layout.matmul_leading_dims import MatMulLeadingDims
from irconv_layout.sink_transposes import SinkTransposes
from irconv_opset import Add, MatMul, Reshape, Transpose

TO_NHWC = [0, 2, 3, 1]
TO_NCHW = [0, 3, 1, 2]


def _dense_on_image(restore: tuple[int, ...] = (1, 4, 5, 6)) -> GraphBuilder:
    """x[1,3,4,5] -> T(NHWC) -> Reshape[20,3] -> MatMul(W[3,6]) -> Reshape(restore) -> Add(b) -> T(NCHW)."""
    b = GraphBuilder()
    x = b.parameter("x", (1, 3, 4, 5))
    t = b.op(Transpose(), x, b.const(TO_NHWC, np.int64))
    flat = b.op(Reshape(special_zero=False), t, b.const([20, 3], np.int64))
    w = np.random.default_rng(1).standard_normal((3, 6)).astype(np.float32)
    dense = b.op(MatMul(), flat, b.const(w))
    back = b.op(Reshape(special_zero=False), dense, b.const(list(restore), np.int64))
    biased = b.op(Add(), back, b.const(np.linspace(-1, 1, 6, dtype=np.float32)))
    if len(restore) == 4:
        biased = b.op(Transpose(), biased, b.const(TO_NCHW, np.int64))
    b.result(biased, "y")
    return b


def test_dense_over_channels_leaves_no_transpose(
    run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]],
    random_array: Callable[..., np.ndarray],
) -> None:
    x = random_array(1, 3, 4, 5)
    (want,) = run_graph(_dense_on_image().graph, [x])
    b = _dense_on_image()
    assert run_transform(b.graph, MatMulLeadingDims())
    assert b.graph.by_type("Reshape") == []
    assert run_transform(b.graph, SinkTransposes())
    assert b.graph.by_type("Transpose") == [] and b.graph.by_type("MatMul") == []
    assert len(b.graph.by_type("Convolution")) == 1
    (got,) = run_graph(b.graph, [x])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_reshapes_that_do_not_restore_the_leading_dims_stay() -> None:
    b = _dense_on_image(restore=(4, 5, 6))  # drops the batch dim: not a pure MatMul on x
    before = _dense_on_image(restore=(4, 5, 6))
    assert not run_transform(b.graph, MatMulLeadingDims())
    assert_graphs_equal(b.graph, before.graph)


def test_matmul_over_a_non_channel_axis_does_not_sink() -> None:
    """T moves W (not C) last: the MatMul mixes spatial positions, no 1x1 convolution."""
    b = GraphBuilder()
    x = b.parameter("x", (1, 3, 4, 5))
    t = b.op(Transpose(), x, b.const([0, 1, 3, 2], np.int64))
    b.result(b.op(MatMul(), t, b.const(np.ones((4, 2), np.float32))), "y")
    assert not run_transform(b.graph, SinkTransposes())
    assert len(b.graph.by_type("Transpose")) == 1
