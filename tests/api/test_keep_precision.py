"""A plugin keeps one constant in f32 under fp16 compression with ``Const(keep_precision=True)``."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.ops import Const
from irconv.testing import GraphBuilder
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import Multiply

pytest.importorskip("openvino")


@pytest.mark.parametrize("keep", [True, False])
def test_keep_precision_survives_fp16_compression(tmp_path, keep):
    b = GraphBuilder()
    x = b.parameter("x", (4,))
    scale = b.graph.add_node(Const(np.array([1.0001, 2.0, 3.0, 4.0], np.float32), keep_precision=keep), "scale")
    b.result(b.op(Multiply(), x, scale.out_port(0), name="y"))
    xml = emit_ir(b.graph, tmp_path / "m.xml", compress_to_fp16=True)
    text = xml.read_text()
    assert ('element_type="f32" shape="4"' in text) is keep
    assert ('element_type="f16" shape="4"' in text) is not keep
    (y,) = run_ir(xml, [np.ones(4, np.float32)]).values()
    assert bool(y[0] == np.float32(1.0001)) is keep  # 1.0001 has no exact f16: rounded to 1.0
