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


def test_a_bf16_network_converts_with_its_constants_folded_in_bf16(tmp_path, installed_host) -> None:
    """Conv, BatchNormalization, a product of two bf16 constants, a reshaped and transposed
    bf16 matrix, all computed in bf16 (irconv folds and decomposes those constants by widening
    them to f32 and rounding back). OpenVINO's result is compared with onnxruntime's on the
    same network in f32 with the same (bf16-exact) weights: within bf16's rounding."""
    import onnx
    import onnxruntime as ort
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir

    def values(*shape: int) -> np.ndarray:  # bf16-exact f32 values
        v = RNG.standard_normal(shape).astype(np.float32)
        return ((v.view(np.uint32) >> 16) << 16).view(np.float32)

    params = {"w": values(4, 3, 3, 3), "cb": values(4), "g": values(4), "beta": values(4), "mean": values(4),
              "var": np.abs(values(4)) + 0.5, "s1": values(4, 1, 1), "s2": values(4, 1, 1), "wfc": values(5, 256),
              "bfc": values(5)}

    def model(et: int) -> onnx.ModelProto:
        def tensor(name: str, v: np.ndarray) -> TensorProto:
            if et == TensorProto.FLOAT:
                return helper.make_tensor(name, et, v.shape, v.reshape(-1).tolist())
            return _bf16_tensor(name, v)

        nodes = [
            helper.make_node("Cast", ["x"], ["xb"], to=et),
            helper.make_node("Conv", ["xb", "w", "cb"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", ["c", "g", "beta", "mean", "var"], ["bn"]),
            helper.make_node("Mul", ["s1", "s2"], ["s"]),
            helper.make_node("Mul", ["bn", "s"], ["bs"]),
            helper.make_node("Relu", ["bs"], ["r"]),
            helper.make_node("Reshape", ["wfc", "shape"], ["wfc2"]),
            helper.make_node("Transpose", ["wfc2"], ["wfct"], perm=[1, 0]),
            helper.make_node("Flatten", ["r"], ["flat"]),
            helper.make_node("MatMul", ["flat", "wfct"], ["mm"]),
            helper.make_node("Add", ["mm", "bfc"], ["a"]),
            helper.make_node("Cast", ["a"], ["y"], to=TensorProto.FLOAT),
        ]
        inits = [tensor(k, v) for k, v in params.items()]
        inits.append(helper.make_tensor("shape", TensorProto.INT64, [2], [5, 256]))
        graph = helper.make_graph(nodes, "bf16_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)

    bf16_path, f32_path, xml = tmp_path / "bf16.onnx", tmp_path / "f32.onnx", tmp_path / "bf16.xml"
    onnx.save_model(model(TensorProto.BFLOAT16), str(bf16_path))
    onnx.save_model(model(TensorProto.FLOAT), str(f32_path))
    save_model(convert_model(bf16_path, host=installed_host), xml, host=installed_host)
    assert 'element_type="bf16"' in xml.read_text()
    x = values(1, 3, 8, 8)
    got = run_ir(xml, {"x": x})["y"]
    expected = ort.InferenceSession(str(f32_path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    scale = float(np.abs(expected).max())
    np.testing.assert_allclose(got, expected, rtol=0, atol=0.05 * scale)


def test_bf16_constants_read_by_extractors(tmp_path, installed_host) -> None:
    """Clip bounds and a Pad value given as bf16 initializers (an extractor reads them as
    numbers) clip and pad bf16 data exactly as the definition says."""
    import onnx
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir

    nodes = [
        helper.make_node("Cast", ["x"], ["xb"], to=TensorProto.BFLOAT16),
        helper.make_node("Clip", ["xb", "lo", "hi"], ["c"]),
        helper.make_node("Pad", ["c", "pads", "fill"], ["p"], mode="constant"),
        helper.make_node("Cast", ["p"], ["y"], to=TensorProto.FLOAT),
    ]
    inits = [_bf16_tensor("lo", np.array(-1.0)), _bf16_tensor("hi", np.array(1.5)),
             helper.make_tensor("pads", TensorProto.INT64, [4], [0, 1, 0, 2]), _bf16_tensor("fill", np.array(0.375))]
    graph = helper.make_graph(nodes, "bf16_clip_pad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6])], inits)
    path, xml = tmp_path / "m.onnx", tmp_path / "m.xml"
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    save_model(convert_model(path, host=installed_host), xml, host=installed_host)
    x = np.array([[-3.0, -0.5, 0.25], [1.25, 2.0, -1.0]], np.float32)  # all exact in bf16
    expected = np.pad(np.clip(x, -1.0, 1.5), ((0, 0), (1, 2)), constant_values=0.375)
    np.testing.assert_array_equal(run_ir(xml, {"x": x})["y"], expected)
