"""layout.sink_transposes: transposes move down through agnostic ops and cancel."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ConversionOptions, Graph
from irconv.testing import GraphBuilder, run_transform
from irconv_layout.sink_transposes import SinkTransposes
from irconv_opset import Add, Concat, Multiply, ReduceMean, ReLU, Reshape, Transpose

TO_NCHW = [0, 3, 1, 2]
TO_NHWC = [0, 2, 3, 1]


def _chain() -> GraphBuilder:
    """x -> T(to NHWC) -> ReLU -> Add(c) -> Mul(T(z)) -> Concat -> T(to NCHW) -> y; Mean(axes 1,2) -> m."""
    b = GraphBuilder()
    x = b.parameter("x", (1, 3, 4, 5))
    z = b.parameter("z", (1, 3, 4, 5))
    t = b.op(Transpose(), x, b.const(TO_NHWC, np.int64))
    tz = b.op(Transpose(), z, b.const(TO_NHWC, np.int64))
    h = b.op(Add(), b.op(ReLU(), t), b.const(np.linspace(-1, 1, 3, dtype=np.float32)))
    h = b.op(Multiply(), h, tz)
    h = b.op(Concat(axis=3), h, h)
    b.result(b.op(Transpose(), h, b.const(TO_NCHW, np.int64)), "y")
    b.result(b.op(ReduceMean(keep_dims=False), h, b.const([1, 2], np.int64)), "m")
    return b


def test_transposes_sink_and_cancel(
    run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]],
    random_array: Callable[..., np.ndarray],
) -> None:
    x, z = random_array(1, 3, 4, 5), random_array(1, 3, 4, 5) + 2
    before = run_graph(_chain().graph, [x, z])
    b = _chain()
    assert run_transform(b.graph, SinkTransposes())
    assert b.graph.by_type("Transpose") == []
    after = run_graph(b.graph, [x, z])
    for got, want in zip(after, before, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)


def test_transpose_before_reshape_stays() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (1, 3, 4, 5))
    t = b.op(Transpose(), x, b.const(TO_NHWC, np.int64))
    b.result(b.op(Reshape(special_zero=False), t, b.const([1, -1], np.int64)), "y")
    assert not run_transform(b.graph, SinkTransposes())
    assert len(b.graph.by_type("Transpose")) == 1


def test_disabled_by_option(make_options: Callable[..., ConversionOptions]) -> None:
    b = _chain()
    transform = SinkTransposes()
    from irconv import TransformContext

    assert not transform.condition(b.graph, TransformContext(make_options(disable_nhwc_to_nchw=True)))


def _sliced(shrink: bool) -> GraphBuilder:
    from irconv_opset import StridedSlice

    b = GraphBuilder()
    x = b.parameter("x", (1, 3, 6, 5))
    t = b.op(Transpose(), x, b.const(TO_NHWC, np.int64))
    masks = {"begin_mask": [1, 0, 0, 1], "end_mask": [1, 0, 1, 1], "shrink_axis_mask": [0, 0, 0, int(shrink)]}
    sliced = b.op(
        StridedSlice(new_axis_mask=[], ellipsis_mask=[], **masks),
        t,
        b.const([0, 1, 1, 0], np.int64),
        b.const([0, 5, 0, 0], np.int64),
        b.const([1, 2, 1, 1], np.int64),
    )
    b.result(b.op(ReLU(), sliced), "y")
    return b


def test_through_strided_slice(
    run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]],
    random_array: Callable[..., np.ndarray],
) -> None:
    x = random_array(1, 3, 6, 5)
    (want,) = run_graph(_sliced(False).graph, [x])
    b = _sliced(False)
    assert run_transform(b.graph, SinkTransposes())
    (transpose,) = b.graph.by_type("Transpose")
    assert transpose.in_port(0).get_source().node.type == "ReLU"
    (got,) = run_graph(b.graph, [x])
    np.testing.assert_array_equal(got, want)


def test_strided_slice_with_shrink_stops() -> None:
    b = _sliced(True)
    assert not run_transform(b.graph, SinkTransposes())
    (transpose,) = b.graph.by_type("Transpose")
    assert transpose.in_port(0).get_source().node.type == "Parameter"


def test_shape_of_reads_the_untransposed_tensor(
    run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]],
    random_array: Callable[..., np.ndarray],
) -> None:
    from irconv_opset import ShapeOf

    def build() -> GraphBuilder:
        b = GraphBuilder()
        x = b.parameter("x", (1, 3, 4, 5))
        t = b.op(Transpose(), x, b.const(TO_NHWC, np.int64))
        b.result(b.op(Reshape(special_zero=False), b.op(ReLU(), t), b.op(ShapeOf(), t)), "y")
        return b

    x = random_array(1, 3, 4, 5)
    (want,) = run_graph(build().graph, [x])
    b = build()
    assert run_transform(b.graph, SinkTransposes())
    (transpose,) = b.graph.by_type("Transpose")
    assert [d.node.type for d in transpose.out_port(0).get_destinations()] == ["Reshape"]
    (got,) = run_graph(b.graph, [x])
    np.testing.assert_array_equal(got, want)


def _lookup(table_is_constant: bool) -> GraphBuilder:
    """x (i32 indices) -> T(to NHWC) -> Gather(table, ., 0) -> T(to NCHW) -> y."""
    from irconv_opset import Gather

    b = GraphBuilder()
    x = b.parameter("x", (1, 3, 4, 5), "i32")
    table = b.const(np.linspace(-1, 1, 8, dtype=np.float32)) if table_is_constant else b.parameter("table", (8,))
    t = b.op(Transpose(), x, b.const(TO_NHWC, np.int64))
    looked_up = b.op(Gather(batch_dims=0), table, t, b.const(0, np.int64))
    b.result(b.op(Transpose(), looked_up, b.const(TO_NCHW, np.int64)), "y")
    return b


def test_transposes_cancel_through_a_table_lookup(run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]]) -> None:
    x = np.random.default_rng(0).integers(0, 8, (1, 3, 4, 5)).astype(np.int32)
    before = run_graph(_lookup(True).graph, [x])
    b = _lookup(True)
    assert run_transform(b.graph, SinkTransposes())
    assert b.graph.by_type("Transpose") == []
    np.testing.assert_array_equal(run_graph(b.graph, [x])[0], before[0])


def test_lookup_in_a_computed_table_stops_a_transpose() -> None:
    b = _lookup(False)
    run_transform(b.graph, SinkTransposes())
    assert len(b.graph.by_type("Transpose")) == 2
