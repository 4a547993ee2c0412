"""The back-phase rewrites into forms the CPU plugin compiles (``irconv_opset.exact_forms``),
each checked by running the rewritten graph in OpenVINO on inputs of several sizes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.errors import ConversionError
from irconv.pipeline.run import check_runtime_rules
from irconv.testing import GraphBuilder, graph_signature, run_transform
from irconv.types import MaybeShape
from irconv_opset import Multiply, Squeeze
from irconv_opset.exact_forms import SqueezeKnownAxes

pytest.importorskip("openvino")


def squeeze_graph(shape: MaybeShape, axes: list[int]) -> GraphBuilder:
    """x -> Multiply(x, 2) -> Squeeze-15(allow_axis_skip) -> y (the Multiply keeps the
    Squeeze off the Parameter, as in a model)."""
    b = GraphBuilder()
    x = b.op(Multiply(), b.parameter("x", shape), b.const(np.float32(2)))
    b.result(b.op(Squeeze(allow_axis_skip=True), x, b.const(np.array(axes, np.int64)), name="squeeze"), "y")
    return b


@pytest.mark.parametrize(
    ("shape", "axes", "runs", "left"),
    [
        ((1, None, 5), [0, 2], [(1, 4, 5), (1, 9, 5)], (None, 5)),  # axis 0 goes, axis 2 (5) stays
        ((None, 1, 3), [-2], [(2, 1, 3), (7, 1, 3)], (None, 3)),
        ((3, None), [0], [(3, 2), (3, 6)], (3, None)),  # nothing to squeeze: the node goes
    ],
)
def test_squeeze_of_known_sizes_compiles_on_dynamic_models(
    shape: MaybeShape, axes: list[int], runs: list[tuple[int, ...]], left: MaybeShape, tmp_path: Path
) -> None:
    from irconv.testing.runtime import emit_ir, run_ir

    graph = squeeze_graph(shape, axes).graph
    assert run_transform(graph, SqueezeKnownAxes()) is True
    squeezes = graph.by_type("Squeeze")
    assert all(n.op.version == 1 for n in squeezes)
    assert graph.by_type("Result")[0].in_port(0).get_source().data.get_shape() == left
    check_runtime_rules(graph)
    xml = emit_ir(graph, tmp_path / "m.xml")
    for run in runs:
        x = np.random.default_rng(0).standard_normal(run).astype(np.float32)
        want = np.squeeze(x * 2, axis=tuple(a % len(run) for a in axes if run[a] == 1))
        got = run_ir(xml, {"x": x})["y"]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_squeeze_of_a_run_time_size_is_left_and_refused_with_its_reason() -> None:
    graph = squeeze_graph((2, None, 3), [1]).graph
    before = graph_signature(graph)
    assert run_transform(graph, SqueezeKnownAxes()) is False
    assert graph_signature(graph) == before
    with pytest.raises(ConversionError, match=r"'squeeze' \(Squeeze-15\).* axis 1 of its input \[2,\?,3\] has a "
                                              r"run-time size.*--input"):
        check_runtime_rules(graph)


def test_squeeze_without_axis_skip_is_left_alone() -> None:
    b = GraphBuilder()
    b.result(b.op(Squeeze(), b.parameter("x", (1, None)), b.const(np.array([0], np.int64))), "y")
    before = graph_signature(b.graph)
    assert run_transform(b.graph, SqueezeKnownAxes()) is False
    assert graph_signature(b.graph) == before
    check_runtime_rules(b.graph)


def test_pdpd_broadcast_becomes_numpy_with_the_same_values(tmp_path: Path) -> None:
    from irconv.testing.runtime import emit_ir, run_ir
    from irconv_opset import Subtract
    from irconv_opset.exact_forms import PdpdAsNumpy

    a = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)  # aligned from axis 0
    builder = GraphBuilder()
    builder.result(builder.op(Subtract(auto_broadcast="pdpd"), builder.parameter("a", (None, 3, 4)),
                              builder.parameter("b", (None, 3)), name="sub"), "y")
    graph = builder.graph
    assert run_transform(graph, PdpdAsNumpy()) is True
    assert [n.op.auto_broadcast for n in graph.by_type("Subtract")] == ["numpy"]
    got = run_ir(emit_ir(graph, tmp_path / "m.xml"), {"a": a, "b": b})["y"]
    np.testing.assert_allclose(got, Subtract(auto_broadcast="pdpd").evaluate([a, b])[0], rtol=1e-6)
    np.testing.assert_allclose(got, a - b[:, :, None], rtol=1e-6)


def test_adaptive_max_pool_computes_i32_indices_and_gives_i64(tmp_path: Path) -> None:
    from irconv.testing.runtime import emit_ir, run_ir
    from irconv.types import ElementType
    from irconv_opset import AdaptiveMaxPool
    from irconv_opset.exact_forms import AdaptiveMaxPoolI32Indices

    x = np.random.default_rng(3).standard_normal((1, 2, 6, 5)).astype(np.float32)
    builder = GraphBuilder()
    pool = builder.node(AdaptiveMaxPool(), builder.parameter("x", (None, 2, None, None)),
                        builder.const(np.array([3, 2], np.int64)), name="pool")
    builder.result(pool.out_port(0), "values")
    builder.result(pool.out_port(1), "indices")
    graph = builder.graph
    assert run_transform(graph, AdaptiveMaxPoolI32Indices()) is True
    assert [n.op.index_element_type for n in graph.by_type("AdaptiveMaxPool")] == [ElementType.i32]
    got = run_ir(emit_ir(graph, tmp_path / "m.xml"), {"x": x})
    values, indices = AdaptiveMaxPool().evaluate([x, np.array([3, 2])])
    assert got["indices"].dtype == np.int64
    np.testing.assert_array_equal(got["indices"], indices)
    np.testing.assert_allclose(got["values"], values)


def test_an_attribute_value_the_cpu_plugin_lacks_is_refused_by_name() -> None:
    from irconv_opset import MaxPool_v8

    b = GraphBuilder()
    pool = MaxPool_v8(kernel=(2, 2), strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), dilations=(1, 1),
                      rounding_type="ceil_torch")
    node = b.node(pool, b.parameter("x", (1, 1, 5, 5)), name="pool")
    b.result(node.out_port(0), "y")
    b.result(node.out_port(1), "i")
    with pytest.raises(ConversionError, match=r"'pool' \(MaxPool-8\): rounding_type='ceil_torch' is not a value .*"
                                              r"'floor', 'ceil'"):
        check_runtime_rules(b.graph)
