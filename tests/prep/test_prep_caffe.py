"""Caffe models with Model Optimizer's preprocessing options, against OpenCV on preprocessed input.

The IR is fed what a camera gives (RGB, 0..255); OpenCV runs the original network on
what it was trained with (BGR minus the means, divided by the scales).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

MEANS = np.array([104.0, 117.0, 123.0], np.float32)  # BGR, the model's channel order
SCALES = np.array([58.0, 57.0, 57.5], np.float32)

CONV = """
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
        convolution_param { num_output: 4 kernel_size: 3 PAD } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
"""
POOL_FIRST = """
layer { name: "pool0" type: "Pooling" bottom: "data" top: "pool0" pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
layer { name: "conv1" type: "Convolution" bottom: "pool0" top: "conv1" convolution_param { num_output: 4 kernel_size: 3 } }
"""


def preprocessed(rgb: np.ndarray, reverse: bool, means: np.ndarray | None, scales: np.ndarray | None) -> np.ndarray:
    x = rgb[:, ::-1] if reverse else rgb
    if means is not None:
        x = x - means.reshape(1, -1, 1, 1)
    if scales is not None:
        x = x / scales.reshape(1, -1, 1, 1)
    return x


def values(v: np.ndarray) -> str:
    return "data[" + ",".join(str(float(x)) for x in v) + "]"


@pytest.mark.parametrize("reverse", [True, False], ids=["bgr", "rgb"])
@pytest.mark.parametrize("means", [True, False], ids=["mean", "nomean"])
@pytest.mark.parametrize("scales", ["values", "scalar", None])
def test_folded_into_the_first_convolution(
    kit: Any, caffe_net: Any, tmp_path: Path, reverse: bool, means: bool, scales: str | None
) -> None:
    proto, weights = caffe_net(CONV.replace("PAD", ""), (1, 3, 12, 12))
    args = []
    if reverse:
        args.append("--reverse-input-channels")
    if means:
        args += ["--mean-values", values(MEANS)]
    scale_vector = None
    if scales == "values":
        args += ["--scale-values", values(SCALES)]
        scale_vector = SCALES
    elif scales == "scalar":
        args += ["--scale", "58"]
        scale_vector = np.full(3, 58.0, np.float32)
    plain = tmp_path / "plain.xml"
    assert kit.convert(proto, plain, "--weights", str(weights)) == 0
    out = tmp_path / "prep.xml"
    assert kit.convert(proto, out, "--weights", str(weights), *args) == 0
    # Folded: exactly the layers of the plain conversion, nothing added.
    assert kit.layer_types(out) == kit.layer_types(plain)
    rgb = kit.rgb_image((1, 3, 12, 12))
    got = kit.run(out, {"data": rgb})["pool1"]
    expected = kit.opencv_forward(proto, weights, preprocessed(rgb, reverse, MEANS if means else None, scale_vector))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(expected).max())))


def test_padded_convolution_keeps_the_means_as_a_subtract(kit: Any, caffe_net: Any, tmp_path: Path) -> None:
    proto, weights = caffe_net(CONV.replace("PAD", "pad: 1"), (1, 3, 12, 12))
    plain = tmp_path / "plain.xml"
    assert kit.convert(proto, plain, "--weights", str(weights)) == 0
    out = tmp_path / "prep.xml"
    args = [
        "--weights",
        str(weights),
        "--reverse-input-channels",
        "--mean-values",
        values(MEANS),
        "--scale-values",
        values(SCALES),
    ]
    assert kit.convert(proto, out, *args) == 0
    added = Counter(kit.layer_types(out)) - Counter(kit.layer_types(plain))
    # Only the means' subtraction (which the IR may spell Add of the negated means) and its constant.
    assert sum(added.values()) == 2 and added["Const"] == 1 and (added["Subtract"] or added["Add"])
    rgb = kit.rgb_image((1, 3, 12, 12), seed=1)
    got = kit.run(out, {"data": rgb})["pool1"]
    expected = kit.opencv_forward(proto, weights, preprocessed(rgb, True, MEANS, SCALES))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


def test_without_a_convolution_first_the_steps_are_layers(kit: Any, caffe_net: Any, tmp_path: Path) -> None:
    proto, weights = caffe_net(POOL_FIRST, (1, 3, 12, 12))
    out = tmp_path / "prep.xml"
    args = ["--weights", str(weights), "--reverse-input-channels", "--mean-values", values(MEANS), "--scale", "255"]
    assert kit.convert(proto, out, *args) == 0
    types = kit.layer_types(out)
    assert {"Gather", "Multiply"} <= set(types) and ("Subtract" in types or types.count("Add") == 2)
    rgb = kit.rgb_image((1, 3, 12, 12), seed=2)
    got = kit.run(out, {"data": rgb})["conv1"]
    expected = kit.opencv_forward(proto, weights, preprocessed(rgb, True, MEANS, np.full(3, 255.0, np.float32)))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


def test_layout_change_and_batch(kit: Any, caffe_net: Any, tmp_path: Path) -> None:
    """An NCHW Caffe network given NHWC inputs at batch 2, with means folded too."""
    proto, weights = caffe_net(CONV.replace("PAD", ""), (1, 3, 12, 12))
    out = tmp_path / "prep.xml"
    args = ["--weights", str(weights), "--layout", "data(nchw->nhwc)", "--batch", "2", "--mean-values", values(MEANS)]
    assert kit.convert(proto, out, *args) == 0
    import openvino as ov

    model = ov.Core().read_model(str(out))
    assert list(model.input(0).get_partial_shape().to_shape()) == [2, 12, 12, 3]
    nhwc = kit.rgb_image((2, 12, 12, 3), seed=3)
    got = kit.run(out, {"data": nhwc})["pool1"]
    nchw = nhwc.transpose(0, 3, 1, 2)
    for item in range(2):
        expected = kit.opencv_forward(proto, weights, preprocessed(nchw[item : item + 1], False, MEANS, None))
        np.testing.assert_allclose(got[item : item + 1], expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


def test_freeze_a_second_input(kit: Any, tmp_path: Path) -> None:
    """A Caffe net with a per-channel gain input, frozen to a value and folded."""
    from irconv_caffe.testing import write_random_caffemodel

    proto = tmp_path / "two.prototxt"
    proto.write_text(
        'name: "two"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 6 dim: 6 }\n'
        'input: "gain"\ninput_shape { dim: 1 dim: 3 dim: 1 dim: 1 }\n'
        'layer { name: "scaled" type: "Scale" bottom: "data" bottom: "gain" top: "scaled" scale_param { axis: 0 } }\n'
        'layer { name: "conv1" type: "Convolution" bottom: "scaled" top: "conv1" convolution_param { num_output: 2 kernel_size: 3 } }\n'
    )
    weights = tmp_path / "two.caffemodel"
    write_random_caffemodel(proto, weights, seed=11)
    out = tmp_path / "frozen.xml"
    assert kit.convert(proto, out, "--weights", str(weights), "--freeze-placeholder-with-value", "gain[0.5,2,-1]") == 0
    assert kit.layer_types(out).count("Parameter") == 1
    x = kit.rgb_image((1, 3, 6, 6), seed=5)
    got = kit.run(out, {"data": x})["conv1"]
    cv2 = pytest.importorskip("cv2")
    net = cv2.dnn.readNetFromCaffe(str(proto), str(weights))
    net.setInput(x, "data")
    net.setInput(np.array([0.5, 2, -1], np.float32).reshape(1, 3, 1, 1), "gain")
    expected = net.forward("conv1")
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))
