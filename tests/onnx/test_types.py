"""Element types: bfloat16 values convert (run-time casts, bf16 constants folded through
ml_dtypes); types irconv cannot hold (strings, FNUZ float8, int4) are refused with one clear message."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

RNG = np.random.default_rng(5)


def _bf16_tensor(name: str, values: np.ndarray) -> TensorProto:
    """A bf16 initializer holding ``values`` rounded to bf16 (truncated mantissa)."""
    bits = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return helper.make_tensor(name, TensorProto.BFLOAT16, values.shape, bits.tobytes(), raw=True)


def test_bf16_casts_of_run_time_values(convert_and_compare) -> None:
    nodes = [
        helper.make_node("Cast", ["x"], ["x16"], to=TensorProto.BFLOAT16),
        helper.make_node("Cast", ["x16"], ["y"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(nodes, "bf16", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    convert_and_compare(model, {"x": RNG.standard_normal((2, 3)).astype(np.float32)}, rtol=1e-2, atol=1e-2)


def test_bf16_constants_fold_and_convert(convert_and_compare) -> None:
    """A bf16 initializer, and f32 constants cast to bf16 and back (folded at conversion)."""
    nodes = [
        helper.make_node("Cast", ["w"], ["w32"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["c"], ["c16"], to=TensorProto.BFLOAT16),
        helper.make_node("Cast", ["c16"], ["c32"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["x", "w32"], ["xw"]),
        helper.make_node("Mul", ["xw", "c32"], ["y"]),
    ]
    weights = RNG.standard_normal(6).astype(np.float32).reshape(2, 3)
    graph = helper.make_graph(nodes, "bf16", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                              [_bf16_tensor("w", weights),
                               helper.make_tensor("c", TensorProto.FLOAT, [3], [1.0 / 3, 2.7182817, -1e3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    convert_and_compare(model, {"x": RNG.standard_normal((2, 3)).astype(np.float32)}, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("elem, words", [
    (TensorProto.STRING, "string tensors"),
    (TensorProto.FLOAT8E4M3FNUZ, "FNUZ 8-bit floats"),
    (TensorProto.INT4, "4-bit integer"),
])
def test_types_irconv_cannot_hold_are_one_clear_error(tmp_path, elem: int, words: str) -> None:
    import onnx
    from irconv import ConversionError, convert_model

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "t",
                              [helper.make_tensor_value_info("x", elem, [2])],
                              [helper.make_tensor_value_info("y", elem, [2])])
    path = tmp_path / "m.onnx"
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), str(path))
    with pytest.raises(ConversionError, match=words) as info:
        convert_model(path)
    assert "input 'x'" in str(info.value)
