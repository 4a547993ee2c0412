"""layout.nchw_inputs: with --layout-inputs nchw, inputs of wrapped graphs become NCHW."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ConversionOptions, Graph
from irconv.testing import GraphBuilder, run_transform
from irconv_layout.nchw_inputs import NchwInputs
from irconv_layout.wrap_marked import WrapMarked
from irconv_opset import AvgPool


def _marked() -> GraphBuilder:
    b = GraphBuilder()
    x = b.parameter("x", (1, 6, 4, 3))
    pool = b.node(AvgPool(strides=(2, 2), kernel=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="valid"), x)
    pool.layout = "NHWC"
    b.result(pool.out_port(0), "y")
    run_transform(b.graph, WrapMarked())
    return b


def test_input_becomes_nchw(
    run_graph: Callable[[Graph, list[np.ndarray]], list[np.ndarray]],
    random_array: Callable[..., np.ndarray],
    make_options: Callable[..., ConversionOptions],
) -> None:
    x = random_array(1, 6, 4, 3)
    (want,) = run_graph(_marked().graph, [x])
    b = _marked()
    assert run_transform(b.graph, NchwInputs(), make_options(layout_inputs="nchw"))
    (param,) = b.graph.parameters()
    assert param.out_port(0).data.get_shape() == (1, 3, 6, 4)
    assert "x" in param.out_port(0).data.names
    (got,) = run_graph(b.graph, [np.ascontiguousarray(x.transpose(0, 3, 1, 2))])
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_not_applied_without_the_option_or_marks(make_options: Callable[..., ConversionOptions]) -> None:
    from irconv import TransformContext

    transform = NchwInputs()
    assert not transform.condition(_marked().graph, TransformContext(make_options()))
    plain = GraphBuilder()
    plain.result(plain.parameter("x", (1, 6, 4, 3)), "y")
    assert not transform.condition(plain.graph, TransformContext(make_options(layout_inputs="nchw")))
