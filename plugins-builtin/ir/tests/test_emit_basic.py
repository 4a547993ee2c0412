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
