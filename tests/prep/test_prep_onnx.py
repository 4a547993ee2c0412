"""ONNX models with the preparation options, against onnxruntime on the prepared input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

MEANS = np.array([0.485, 0.456, 0.406], np.float32) * 255
SCALES = np.array([0.229, 0.224, 0.225], np.float32) * 255


def conv_model(path: Path, kit: Any, batch: int | str = 1, pads: int = 0) -> Path:
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.normal(0, 0.3, (5, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.normal(0, 0.3, (5,)).astype(np.float32), "b")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[pads] * 4),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 10, 10])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 5, 10 - 2 + 2 * pads, 10 - 2 + 2 * pads])
    return kit.onnx_model(path, nodes, [x], [y], [w, b])


def test_mean_scale_reverse_fold_into_the_convolution(kit: Any, tmp_path: Path) -> None:
    model = conv_model(tmp_path / "conv.onnx", kit)
    plain, out = tmp_path / "plain.xml", tmp_path / "prep.xml"
    assert kit.convert(model, plain) == 0
    given = [
        "--mean-values",
        f"x[{','.join(map(str, MEANS))}]",
        "--scale-values",
        f"x[{','.join(map(str, SCALES))}]",
    ]
    assert kit.convert(model, out, *given, "--reverse-input-channels") == 0
    assert kit.layer_types(out) == kit.layer_types(plain)
    bgr = kit.rgb_image((1, 3, 10, 10))
    got = kit.run(out, {"x": bgr})["y"]
    prepared = (bgr[:, ::-1] - MEANS.reshape(1, 3, 1, 1)) / SCALES.reshape(1, 3, 1, 1)
    (expected,) = kit.onnxruntime_run(model, {"x": prepared.astype(np.float32)})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


def test_nhwc_input_and_batch_for_a_dynamic_batch_model(kit: Any, tmp_path: Path) -> None:
    import openvino as ov

    model = conv_model(tmp_path / "conv.onnx", kit, batch="N", pads=1)
    out = tmp_path / "prep.xml"
    assert kit.convert(model, out, "--layout", "x(nchw->nhwc)", "--batch", "3", "--scale", "255") == 0
    assert list(ov.Core().read_model(str(out)).input(0).get_partial_shape().to_shape()) == [3, 10, 10, 3]
    nhwc = kit.rgb_image((3, 10, 10, 3), seed=4)
    got = kit.run(out, {"x": nhwc})["y"]
    (expected,) = kit.onnxruntime_run(model, {"x": np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2)) / 255})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


def test_layout_reaches_the_runtime_info(kit: Any, tmp_path: Path) -> None:
    import openvino as ov
    from irconv import convert_model, save_model

    model = conv_model(tmp_path / "conv.onnx", kit)
    graph = convert_model(model, layout="x(nchw)")
    assert graph.parameters()[0].op.layout == "[N,C,H,W]"
    graph = convert_model(model, source_layout="x(nchw)", target_layout="x(nhwc)")
    (parameter,) = graph.parameters()
    assert parameter.op.shape == (1, 10, 10, 3)
    save_model(graph, tmp_path / "nhwc.xml")
    (read,) = ov.Core().read_model(str(tmp_path / "nhwc.xml")).get_parameters()
    assert read.get_layout() == ov.Layout("NHWC")


def test_freeze_an_input_then_fold(kit: Any, tmp_path: Path) -> None:
    nodes = [helper.make_node("Mul", ["x", "k"], ["m"]), helper.make_node("Add", ["m", "k"], ["y"])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    k = helper.make_tensor_value_info("k", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    model = kit.onnx_model(tmp_path / "mul.onnx", nodes, [x, k], [y], [])
    out = tmp_path / "frozen.xml"
    assert kit.convert(model, out, "--freeze-placeholder-with-value", "k[0.5,2,-1]") == 0
    import openvino as ov

    assert [i.get_any_name() for i in ov.Core().read_model(str(out)).inputs] == ["x"]
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = kit.run(out, {"x": data})["y"]
    (expected,) = kit.onnxruntime_run(model, {"x": data, "k": np.array([0.5, 2, -1], np.float32)})
    np.testing.assert_allclose(got, expected, rtol=1e-6)
