"""TemperedSoftmax converted and run in OpenVINO, against NumPy; the option and a bad value."""

from __future__ import annotations

from pathlib import Path

import irconv
import numpy as np
import pytest
from irconv import ConversionError, ConversionOptions
from irconv.testing import GraphBuilder, run_extractor
from irconv.testing.runtime import run_ir
from irconv_tempered.extractors import extract_tempered_softmax
from irconv_tempered.options import LOG


def tempered_model(path: Path, **attributes: object) -> Path:
    from onnx import TensorProto, helper, save_model

    node = helper.make_node("TemperedSoftmax", ["x"], ["y"], domain="com.outside", **attributes)
    graph = helper.make_graph(
        [node],
        "tempered",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 5])],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.outside", 1)]
    save_model(helper.make_model(graph, opset_imports=opsets), path)
    return path


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


X = np.random.default_rng(0).normal(size=(2, 3, 5)).astype(np.float32)


def test_probabilities_match_numpy(tmp_path: Path) -> None:
    model = tempered_model(tmp_path / "t.onnx", axis=1, temperature=0.5)
    irconv.save_model(irconv.convert_model(model), tmp_path / "t.xml")
    (y,) = run_ir(tmp_path / "t.xml", {"x": X}).values()
    np.testing.assert_allclose(y, softmax(X / 0.5, axis=1), rtol=1e-5, atol=1e-6)


def test_the_log_option_gives_log_probabilities(tmp_path: Path) -> None:
    model = tempered_model(tmp_path / "t.onnx", temperature=2.0)
    graph = irconv.convert_model(model, tempered_log=True)  # the option's keyword
    irconv.save_model(graph, tmp_path / "t.xml")
    (y,) = run_ir(tmp_path / "t.xml", {"x": X}).values()
    np.testing.assert_allclose(y, np.log(softmax(X / 2.0, axis=-1)), rtol=1e-5, atol=1e-5)


def test_a_non_positive_temperature_is_named(tmp_path: Path) -> None:
    model = tempered_model(tmp_path / "t.onnx", temperature=0.0)
    with pytest.raises(ConversionError, match=r"attribute temperature=0.0 is not supported: .*positive"):
        irconv.convert_model(model)


def test_the_extractor_reads_the_option() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (2, 3, 5))
    (plain,) = run_extractor(b, extract_tempered_softmax, x, attributes={"temperature": 2.0})
    (log,) = run_extractor(b, extract_tempered_softmax, x, attributes={"temperature": 2.0},
                           options=ConversionOptions().with_values(**{LOG.name: True}))
    assert (plain.node.type, log.node.type) == ("SoftMax", "LogSoftmax")
    assert log.node.in_port(0).get_source().node.type == "Divide"
