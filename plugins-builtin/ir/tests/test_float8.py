"""8-bit float constants and Convert destination types: emitted, read back, run by OpenVINO."""

from __future__ import annotations

import re

import numpy as np
import pytest
from irconv import Const, narrow_float
from irconv.pipeline.infer import infer_graph
from irconv.testing import GraphBuilder
from irconv.testing.runtime import emit_ir, run_ir
from irconv.types import ElementType
from irconv_opset import Add, Convert

VALUES = np.array([0.0, -0.5, 1.25, 3.0, -448.0, 0.015625], np.float32)


def _graph(et: ElementType):  # type: ignore[no-untyped-def]
    b = GraphBuilder("float8")
    x = b.parameter("x", (6,))
    weights = b.const(narrow_float.from_float(VALUES, et))
    widened = b.op(Convert(destination_type=ElementType.f32), weights)
    y = b.op(Add(), x, widened)
    narrowed = b.op(Convert(destination_type=et), y)
    b.result(b.op(Convert(destination_type=ElementType.f32), narrowed), "y")
    infer_graph(b.graph)
    return b.graph


@pytest.mark.parametrize("et", [ElementType.f8e5m2, ElementType.f8e4m3], ids=lambda et: et.value)
@pytest.mark.parametrize("compress", [False, True], ids=["f32", "fp16"])
def test_float8_constant_round_trip(tmp_path, installed_host, reemit, et, compress):
    first = emit_ir(_graph(et), tmp_path / "a.xml", installed_host, compress_to_fp16=compress)
    xml = first.read_text()
    assert re.search(rf'element_type="{et.value}"[^>]*size="6"', xml)  # 1 byte a value, fp16 leaves it alone
    assert f'destination_type="{et.value}"' in xml
    assert f'precision="{et.precision}"' in xml
    second = tmp_path / "b.xml"
    graph = reemit(first, second, compress_to_fp16=compress)
    consts = [n.op.value for n in graph.nodes() if isinstance(n.op, Const)]
    stored = [v for v in consts if narrow_float.element_type_of(v) is et]
    assert len(stored) == 1
    np.testing.assert_array_equal(narrow_float.to_float32(stored[0]), narrow_float.to_float32(narrow_float.from_float(VALUES, et)))
    assert first.read_bytes() == second.read_bytes()
    assert first.with_suffix(".bin").read_bytes() == second.with_suffix(".bin").read_bytes()

    x = np.array([0.0, 0.0, 0.1, 1.0, 0.0, 0.0], np.float32)
    expected = narrow_float.to_float32(narrow_float.from_float(x + narrow_float.to_float32(narrow_float.from_float(VALUES, et)), et))
    for path in (first, second):
        np.testing.assert_array_equal(run_ir(path, {"x": x})["y"], expected)
