"""emit -> read -> emit gives identical files; the re-read IR still runs the same."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.pipeline.infer import infer_graph
from irconv.testing import GraphBuilder
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import catalog


def _op(name):  # type: ignore[no-untyped-def]
    for cls in catalog.all_ops():
        if cls.__name__ == name:
            return cls
    pytest.skip(f"opset op {name} not available yet")


def _conv_graph():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    b = GraphBuilder("round trip")
    x = b.parameter("x, the input", (1, 3, 8, None))
    w = b.const(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    conv = b.op(_op("Convolution")(strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1]), x, w)
    bias = b.const(rng.standard_normal((1, 4, 1, 1)).astype(np.float32))
    y = b.op(_op("Add")(), conv, bias)
    b.result(b.op(_op("ReLU")(), y), "y")
    b.result(b.op(_op("SoftMax")(axis=1), y), "probabilities")
    infer_graph(b.graph)
    return b.graph


@pytest.mark.parametrize("compress", [False, True], ids=["f32", "fp16"])
def test_emit_read_emit_is_identical(tmp_path, installed_host, reemit, compress):
    first = emit_ir(_conv_graph(), tmp_path / "a.xml", installed_host, compress_to_fp16=compress)
    second = tmp_path / "b.xml"
    reemit(first, second, compress_to_fp16=compress)
    assert first.read_bytes() == second.read_bytes()
    assert first.with_suffix(".bin").read_bytes() == second.with_suffix(".bin").read_bytes()


def test_reread_ir_runs_like_the_original(tmp_path, installed_host, reemit):
    first = emit_ir(_conv_graph(), tmp_path / "a.xml", installed_host)
    second = tmp_path / "b.xml"
    reemit(first, second)
    data = np.random.default_rng(1).standard_normal((1, 3, 8, 5)).astype(np.float32)
    expected = run_ir(first, {"x, the input": data})
    got = run_ir(second, {"x, the input": data})
    assert set(expected) == {"y", "probabilities"} == set(got)
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name])
