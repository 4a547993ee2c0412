"""ReadValue-6 and Assign-6 run as a pair in OpenVINO: a variable kept across inference requests.

Each half alone is refused by the CPU plugin (a ReadValue "doesn't have sibling output", an
Assign's output cannot feed a Result), so these ops have no one-op case in ``cases_*.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv import infer_graph
from irconv.testing import GraphBuilder
from irconv.testing.runtime import emit_ir
from irconv.types import ElementType
from irconv_opset import Add, Assign, ReadValue

pytest.importorskip("openvino")


def accumulator(variable_shape: tuple[int | None, ...]) -> GraphBuilder:
    """total = state + x; state = total: ``total`` is the sum of every ``x`` since the reset."""
    b = GraphBuilder("accumulator")
    x = b.parameter("x", variable_shape, ElementType.f32)
    state = b.op(ReadValue(variable_id="total", variable_type=ElementType.f32, variable_shape=variable_shape),
                 b.const(np.zeros((2, 3), np.float32)), name="read")
    total = b.op(Add(), state, x, name="total")
    b.op(Assign(variable_id="total"), total, name="store")
    b.result(total, "total")
    return b


@pytest.mark.parametrize("variable_shape", [(2, 3), (None, 3)], ids=["static", "dynamic"])
def test_the_variable_keeps_the_sum_across_requests(variable_shape: tuple[int | None, ...], tmp_path: Path) -> None:
    from irconv.runtime import compile_for_comparison

    b = accumulator(variable_shape)
    infer_graph(b.graph)
    assert b.graph.node("read").out_port(0).data.get_shape() == variable_shape
    assert b.graph.node("store").out_port(0).data.get_shape() == b.graph.node("total").out_port(0).data.get_shape()
    compiled = compile_for_comparison(emit_ir(b.graph, tmp_path / "state.xml"))
    request = compiled.create_infer_request()
    assert [state.name for state in request.query_state()] == ["total"]
    feeds = np.random.default_rng(0).standard_normal((3, 2, 3)).astype(np.float32)
    for step in range(3):
        got = request.infer({"x": feeds[step]})[compiled.output("total")]
        np.testing.assert_allclose(got, feeds[: step + 1].sum(0), rtol=1e-6, atol=1e-6)
    request.reset_state()
    np.testing.assert_allclose(request.infer({"x": feeds[0]})[compiled.output("total")], feeds[0], rtol=1e-6)


def test_the_ops_write_their_variable_and_never_fold() -> None:
    read = ReadValue(variable_id="v", variable_type=ElementType.f16, variable_shape=(None, 4))
    assert read.ir_attributes() == {"variable_id": "v", "variable_type": "f16", "variable_shape": "?,4"}
    assert ReadValue(variable_id="v").ir_attributes()["variable_shape"] == "..."
    assert read.evaluate([np.zeros((1, 4), np.float16)]) is None
    assert Assign(variable_id="v").evaluate([np.zeros(4, np.float32)]) is None
