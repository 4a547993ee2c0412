"""Optional inputs left empty in the middle of the input list, one case per op family,
irconv IR on OpenVINO against onnxruntime."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(11)
F32 = TensorProto.FLOAT


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], inits: list[Any] = (), opset: int = 18,
           extra_domains: tuple[str, ...] = ()) -> Any:
    """``outputs``: names (f32) or (name, element type) pairs."""
    typed = [(o, F32) if isinstance(o, str) else o for o in outputs]
    graph = helper.make_graph(nodes, "optional", inputs,
                              [helper.make_tensor_value_info(name, elem, None) for name, elem in typed], list(inits))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in extra_domains]
    return helper.make_model(graph, opset_imports=imports)


def _in(name: str, shape: list[Any], elem: int = F32) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _c(name: str, value: Any) -> Any:
    return numpy_helper.from_array(np.asarray(value), name)


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_clip_without_min(convert_and_compare) -> None:
    model = _model([helper.make_node("Clip", ["x", "", "hi"], ["y"])], [_in("x", [2, 5])], ["y"],
                   [_c("hi", np.float32(0.3))], opset=13)
    convert_and_compare(model, {"x": _f32(2, 5)})


def test_clip_int_without_min_and_a_runtime_max(convert_and_compare) -> None:
    model = _model([helper.make_node("Clip", ["x", "", "hi"], ["y"])],
                   [_in("x", [7], TensorProto.INT32), _in("hi", [], TensorProto.INT32)], [("y", TensorProto.INT32)],
                   opset=13)
    convert_and_compare(model, {"x": np.array([-9, -2, 0, 3, 5, 8, 2**30], np.int32), "hi": np.array(4, np.int32)})


def test_pad_without_constant_value_but_with_axes(convert_and_compare) -> None:
    node = helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="constant")
    model = _model([node], [_in("x", [2, 3, 4])], ["y"],
                   [_c("pads", np.array([1, 2, 0, 1], np.int64)), _c("axes", np.array([0, 2], np.int64))])
    convert_and_compare(model, {"x": _f32(2, 3, 4)})


@pytest.mark.parametrize(("pads", "axes", "words"), [
    (np.zeros((1, 4), np.int64), None, r"pads \(input 1\) must be 1-D, got shape \[1, 4\]"),
    (np.zeros(6, np.int64), np.array([0, 2], np.int64), r"pads \(input 1\) must hold two entries per axis given, got shapes "
     r"\[2\] and \[6\]"),
])
def test_pad_of_misshapen_pads_or_axes_is_one_clear_error(tmp_path, capsys, pads, axes, words) -> None:
    """Mutation run onnx seed 44 case 40023: an LSTM retyped Pad, its W [1, 16, 3] read as pads (a TypeError)."""
    from irconv.cli.main import main

    names = ["x", "pads", "", "axes"] if axes is not None else ["x", "pads"]
    inits = [_c("pads", pads)] + ([_c("axes", axes)] if axes is not None else [])
    model = _model([helper.make_node("Pad", names, ["y"], mode="constant")], [_in("x", [2, 3, 4])], ["y"], inits)
    path = tmp_path / "pad.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["convert", str(path), "-o", str(tmp_path / "out.xml")]) == 1
    err = capsys.readouterr().err
    assert re.search(words, err) and "report it" not in err
    assert not (tmp_path / "out.xml").exists()


def test_slice_without_axes_but_with_steps(convert_and_compare) -> None:
    node = helper.make_node("Slice", ["x", "starts", "ends", "", "steps"], ["y"])
    model = _model([node], [_in("x", [6, 8])], ["y"],
                   [_c("starts", np.array([5, 1], np.int64)), _c("ends", np.array([0, 8], np.int64)),
                    _c("steps", np.array([-2, 3], np.int64))])
    convert_and_compare(model, {"x": _f32(6, 8)})


def test_resize_with_sizes_only(convert_and_compare) -> None:
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")
    model = _model([node], [_in("x", [1, 2, 4, 4])], ["y"], [_c("sizes", np.array([1, 2, 7, 6], np.int64))],
                   opset=13)
    convert_and_compare(model, {"x": _f32(1, 2, 4, 4)})


def test_resize_with_scales_and_no_roi(convert_and_compare) -> None:
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest")
    model = _model([node], [_in("x", [1, 2, 3, 3])], ["y"],
                   [_c("scales", np.array([1, 1, 2, 1.5], np.float32))], opset=13)
    convert_and_compare(model, {"x": _f32(1, 2, 3, 3)})


@pytest.mark.parametrize("kind, gates", [("LSTM", 4), ("GRU", 3), ("RNN", 1)])
def test_recurrent_without_bias_and_lengths_but_with_initial_state(convert_and_compare, kind: str,
                                                                   gates: int) -> None:
    hidden, features, steps, batch = 3, 4, 5, 2
    inputs = ["x", "W", "R", "", "", "h0"]
    inits = [_c("W", _f32(1, gates * hidden, features) * 0.5), _c("R", _f32(1, gates * hidden, hidden) * 0.5),
             _c("h0", _f32(1, batch, hidden))]
    if kind == "LSTM":
        inputs.append("c0")
        inits.append(_c("c0", _f32(1, batch, hidden)))
    outputs = ["y", "y_h"] + (["y_c"] if kind == "LSTM" else [])
    node = helper.make_node(kind, inputs, outputs, hidden_size=hidden)
    model = _model([node], [_in("x", [steps, batch, features])], outputs, inits, opset=14)
    convert_and_compare(model, {"x": _f32(steps, batch, features)}, rtol=1e-4, atol=1e-5)


def test_rnn_with_bias_and_no_lengths(convert_and_compare) -> None:
    node = helper.make_node("RNN", ["x", "W", "R", "B", "", "h0"], ["y"], hidden_size=3, direction="bidirectional")
    inits = [_c("W", _f32(2, 3, 4)), _c("R", _f32(2, 3, 3)), _c("B", _f32(2, 6)), _c("h0", _f32(2, 2, 3))]
    model = _model([node], [_in("x", [5, 2, 4])], ["y"], inits, opset=14)
    convert_and_compare(model, {"x": _f32(5, 2, 4)}, rtol=1e-4, atol=1e-5)


def test_nms_without_iou_threshold(convert_and_compare) -> None:
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 0, 0.5, 0.5], [2, 2, 3, 3]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.3, 0.6]]], np.float32)
    node = helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "", "score"], ["selected"])
    model = _model([node], [_in("boxes", [1, 4, 4]), _in("scores", [1, 1, 4])], [("selected", TensorProto.INT64)],
                   [_c("max", np.array([3], np.int64)), _c("score", np.array([0.5], np.float32))], opset=11)
    convert_and_compare(model, {"boxes": boxes, "scores": scores})


def test_quantize_dequantize_without_zero_points(convert_and_compare) -> None:
    nodes = [helper.make_node("QuantizeLinear", ["x", "scale", ""], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "scale", ""], ["y"])]
    model = _model(nodes, [_in("x", [2, 6])], [("q", TensorProto.UINT8), "y"], [_c("scale", np.float32(0.02))],
                   opset=13)
    convert_and_compare(model, {"x": np.abs(_f32(2, 6))})


def test_matmul_integer_without_a_zero_point(convert_and_compare) -> None:
    node = helper.make_node("MatMulInteger", ["a", "b", "", "b_zero"], ["y"])
    model = _model([node], [_in("a", [2, 3], TensorProto.UINT8)], [("y", TensorProto.INT32)],
                   [_c("b", RNG.integers(0, 255, (3, 4), dtype=np.uint8)), _c("b_zero", np.uint8(7))], opset=13)
    convert_and_compare(model, {"a": RNG.integers(0, 255, (2, 3), dtype=np.uint8)})


def test_dropout_without_ratio(convert_and_compare) -> None:
    node = helper.make_node("Dropout", ["x", "", "training"], ["y"])
    model = _model([node], [_in("x", [3, 4])], ["y"], [_c("training", np.array(False))], opset=13)
    convert_and_compare(model, {"x": _f32(3, 4)})


def test_conv_without_bias_name(convert_and_compare) -> None:
    node = helper.make_node("Conv", ["x", "w", ""], ["y"], pads=[1, 1, 1, 1])
    model = _model([node], [_in("x", [1, 2, 5, 5])], ["y"], [_c("w", _f32(3, 2, 3, 3))], opset=13)
    convert_and_compare(model, {"x": _f32(1, 2, 5, 5)}, rtol=1e-4, atol=1e-5)


def test_skip_layer_norm_without_beta_but_with_bias(convert_and_compare) -> None:
    node = helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "", "bias"], ["y"],
                            domain="com.microsoft", epsilon=1e-5)
    model = _model([node], [_in("x", [2, 3, 8]), _in("skip", [2, 3, 8])], ["y"],
                   [_c("gamma", _f32(8)), _c("bias", _f32(8))], opset=17, extra_domains=("com.microsoft",))
    convert_and_compare(model, {"x": _f32(2, 3, 8), "skip": _f32(2, 3, 8)}, rtol=1e-4, atol=1e-4)


def test_trilu_without_k(convert_and_compare) -> None:
    model = _model([helper.make_node("Trilu", ["x", ""], ["y"], upper=0)], [_in("x", [3, 4])], ["y"], opset=14)
    convert_and_compare(model, {"x": _f32(3, 4)})


def test_dft_without_dft_length_but_with_axis(convert_and_compare) -> None:
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"])
    model = _model([node], [_in("x", [2, 8, 1])], ["y"], [_c("axis", np.array(1, np.int64))], opset=20)
    convert_and_compare(model, {"x": _f32(2, 8, 1)}, rtol=1e-4, atol=1e-5)


def test_stft_without_window_but_with_frame_length(convert_and_compare) -> None:
    node = helper.make_node("STFT", ["x", "step", "", "length"], ["y"])
    model = _model([node], [_in("x", [1, 32, 1])], ["y"],
                   [_c("step", np.array(4, np.int64)), _c("length", np.array(8, np.int64))], opset=17)
    convert_and_compare(model, {"x": _f32(1, 32, 1)}, rtol=1e-4, atol=1e-5)
