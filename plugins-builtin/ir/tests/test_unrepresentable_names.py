"""Names with characters XML 1.0 cannot hold still give an IR the runtime parses."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv import infer_graph, save_model
from irconv.testing import GraphBuilder
from irconv_opset import ReLU
from irconv.runtime import compile_for_comparison


def test_control_characters_in_names_are_written_as_text(tmp_path: Path) -> None:
    b = GraphBuilder()
    x = b.parameter("in\x00put", (1, 3))
    b.result(b.op(ReLU(), x, name="re\x01lu"), "out\x1fput")
    infer_graph(b.graph)
    xml = tmp_path / "names.xml"
    save_model(b.graph, xml)
    text = xml.read_text()
    assert "in\\x00put" in text and "re\\x01lu" in text and "\x00" not in text
    ov = pytest.importorskip("openvino")
    compiled = compile_for_comparison(xml)
    (out,) = compiled([np.array([[-1.0, 0.5, 2.0]], np.float32)]).values()
    np.testing.assert_array_equal(out, [[0.0, 0.5, 2.0]])
    assert "in\\x00put" in compiled.inputs[0].get_names()
