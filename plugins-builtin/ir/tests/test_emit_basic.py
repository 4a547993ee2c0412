"""Emit small graphs and run them in the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv.pipeline.infer import infer_graph
from irconv.testing import GraphBuilder
from irconv.testing.runtime import emit_ir, run_ir


def test_relu_runs_in_openvino(tmp_path, relu_op, installed_host):
    b = GraphBuilder("relu")
    x = b.parameter("x", (2, 3))
    b.result(b.op(relu_op(), x), "y")
    infer_graph(b.graph)
    xml = emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    data = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    out = run_ir(xml, {"x": data})
    np.testing.assert_array_equal(out["y"], np.maximum(data, 0))


def test_const_and_dynamic_dims(tmp_path, add_op, installed_host):
    b = GraphBuilder("add")
    x = b.parameter("x", (None, 3))
    w = b.const(np.arange(3, dtype=np.float32))
    b.result(b.op(add_op(), x, w), "y")
    infer_graph(b.graph)
    xml = emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    data = np.ones((5, 3), np.float32)
    out = run_ir(xml, {"x": data})
    np.testing.assert_array_equal(out["y"], data + np.arange(3, dtype=np.float32))


def test_missing_xml_suffix_is_added(tmp_path, relu_op, installed_host):
    from irconv import ConversionOptions
    from irconv.pipeline.run import save

    b = GraphBuilder("relu")
    b.result(b.op(relu_op(), b.parameter("x", (2,))), "y")
    infer_graph(b.graph)
    written = save(b.graph, tmp_path / "out" / "model.v1", ConversionOptions(), installed_host)
    assert sorted(p.name for p in written) == ["model.v1.bin", "model.v1.xml"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["model.v1.bin", "model.v1.xml"]
    np.testing.assert_array_equal(
        run_ir(tmp_path / "out" / "model.v1.xml", {"x": np.array([-1, 1], np.float32)})["y"], [0, 1]
    )
