"""ONNX FLOAT8E5M2 / FLOAT8E4M3FN: initializers, Cast/CastLike with ``saturate``, QuantizeLinear."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from irconv import narrow_float
from irconv.api import convert_model, save_model
from irconv.errors import ConversionError
from irconv.testing.runtime import run_ir
from irconv.types import ElementType
from onnx import TensorProto, helper

TYPES = {ElementType.f8e5m2: TensorProto.FLOAT8E5M2, ElementType.f8e4m3: TensorProto.FLOAT8E4M3FN}
X = np.array(
    [0.0, -0.0, 1.125, -3.3, 300.0, 460.0, 470.0, 60000.0, 61440.0, 1e6, np.inf, -np.inf, np.nan, 2.0**-17, 0.01],
    np.float32,
)


def _run(path, inputs, tmp_path):  # type: ignore[no-untyped-def]
    xml = tmp_path / "m.xml"
    save_model(convert_model(path), xml, compress_to_fp16=False)
    return run_ir(xml, inputs)


def _model(nodes, inits=(), opset=21):  # type: ignore[no-untyped-def]
    graph = helper.make_graph(
        nodes,
        "f8",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(X)])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [len(X)])],
        list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _expected(et, saturate):  # type: ignore[no-untyped-def]
    return narrow_float.to_float32(narrow_float.from_float(X, et, saturate))


@pytest.mark.parametrize("et", list(TYPES), ids=lambda et: et.value)
@pytest.mark.parametrize("saturate", [1, 0])
def test_cast_to_float8_and_back(save_model, tmp_path, et, saturate) -> None:  # type: ignore[no-untyped-def]
    model = _model(
        [
            helper.make_node("Cast", ["x"], ["f8"], to=TYPES[et], saturate=saturate),
            helper.make_node("Cast", ["f8"], ["y"], to=TensorProto.FLOAT),
        ]
    )
    got = _run(save_model(model), {"x": X}, tmp_path)["y"]
    np.testing.assert_array_equal(got, _expected(et, bool(saturate)))


@pytest.mark.parametrize("et", list(TYPES), ids=lambda et: et.value)
@pytest.mark.parametrize("saturate", [1, 0])
def test_castlike_to_a_float8_initializer(save_model, tmp_path, et, saturate) -> None:  # type: ignore[no-untyped-def]
    like = helper.make_tensor("like", TYPES[et], [1], [0x38], raw=False)  # int32_data holds the codes
    model = _model(
        [
            helper.make_node("CastLike", ["x", "like"], ["f8"], saturate=saturate),
            helper.make_node("Cast", ["f8"], ["y"], to=TensorProto.FLOAT),
        ],
        [like],
    )
    got = _run(save_model(model), {"x": X}, tmp_path)["y"]
    np.testing.assert_array_equal(got, _expected(et, bool(saturate)))


@pytest.mark.parametrize("et", list(TYPES), ids=lambda et: et.value)
def test_float8_initializer_is_an_f8_constant(save_model, tmp_path, et) -> None:  # type: ignore[no-untyped-def]
    codes = narrow_float.bits(narrow_float.from_float(X, et)).tobytes()
    weight = helper.make_tensor("w", TYPES[et], [len(X)], codes, raw=True)
    model = _model(
        [helper.make_node("Cast", ["w"], ["wf"], to=TensorProto.FLOAT), helper.make_node("Add", ["x", "wf"], ["y"])],
        [weight],
    )
    zeros = np.zeros_like(X)
    got = _run(save_model(model), {"x": zeros}, tmp_path)["y"]
    np.testing.assert_array_equal(got, _expected(et, True))


@pytest.mark.parametrize("et", list(TYPES), ids=lambda et: et.value)
def test_quantize_dequantize_float8(save_model, tmp_path, et) -> None:  # type: ignore[no-untyped-def]
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [], [2.0])
    zero = helper.make_tensor("zero", TYPES[et], [], [0], raw=False)
    model = _model(
        [
            helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"]),
            helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["y"]),
        ],
        [scale, zero],
    )
    got = _run(save_model(model), {"x": X}, tmp_path)["y"]
    expected = narrow_float.to_float32(narrow_float.from_float(X / np.float32(2.0), et, True)) * np.float32(2.0)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("code", [TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2FNUZ])
def test_fnuz_float8_is_refused_clearly(save_model, code) -> None:  # type: ignore[no-untyped-def]
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)],
        "fnuz",
        [helper.make_tensor_value_info("x", code, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    with pytest.raises(ConversionError, match="FNUZ.*no OpenVINO IR element type"):
        convert_model(save_model(model))


def test_float8_graph_input_keeps_its_type(save_model) -> None:  # type: ignore[no-untyped-def]
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)],
        "in",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT8E5M2, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    onnx.checker.check_model(model)
    g = convert_model(save_model(model))
    params = [n for n in g.nodes() if getattr(n.op, "type", "") == "Parameter"]
    assert [p.op.element_type for p in params] == [ElementType.f8e5m2]
