"""A model input's layout goes into the IR as runtime info and comes back when read."""

from __future__ import annotations

from pathlib import Path

import pytest
from irconv import Parameter, convert_model, infer_graph, save_model
from irconv.testing import GraphBuilder
from irconv_opset import ReLU


def test_layout_round_trips_and_openvino_sees_it(tmp_path: Path) -> None:
    b = GraphBuilder()
    x = b.parameter("x", (1, 3, 4, 4))
    x.node.op = Parameter((1, 3, 4, 4), layout="[N,C,H,W]")
    b.result(b.op(ReLU(), x), "y")
    infer_graph(b.graph)
    first = tmp_path / "first.xml"
    save_model(b.graph, first)
    back = convert_model(first)
    assert back.parameters()[0].op.layout == "[N,C,H,W]"
    second = tmp_path / "second.xml"
    save_model(back, second)
    assert second.read_bytes() == first.read_bytes()
    ov = pytest.importorskip("openvino")
    (param,) = ov.Core().read_model(str(first)).get_parameters()
    assert param.get_layout() == ov.Layout("NCHW")


def test_dimension_ranges_round_trip(tmp_path: Path) -> None:
    b = GraphBuilder()
    x = b.parameter("x", (1, None, None, 3))
    x.node.op = Parameter((1, None, None, 3), bounds=(None, (2, 8), (4, None), None))
    b.result(b.op(ReLU(), x), "y")
    infer_graph(b.graph)
    first = tmp_path / "ranges.xml"
    save_model(b.graph, first)
    assert 'shape="1,2..8,4..,3"' in first.read_text()
    back = convert_model(first)
    assert back.parameters()[0].op.bounds == (None, (2, 8), (4, None), None)
    second = tmp_path / "again.xml"
    save_model(back, second)
    assert second.read_bytes() == first.read_bytes()
    ov = pytest.importorskip("openvino")
    (param,) = ov.Core().read_model(str(first)).get_parameters()
    assert str(param.get_partial_shape()) == "[1,2..8,4..,3]"
