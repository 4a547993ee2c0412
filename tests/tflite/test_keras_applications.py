"""Keras applications (random weights, no download, small inputs) converted by TensorFlow's
TFLite converter as float, float16 weights and full-integer int8 (random representative
data); irconv's IR run by OpenVINO against the LiteRT interpreter.

MobileNetV2 is in ``test_models.py``; these are MobileNetV3 (hard-swish, squeeze-excite),
EfficientNet (swish, squeeze-excite, the Rescaling/Normalization preprocessing layers) and
ResNet (residual Adds after batch norm folded into the convolutions). The classifiers end
without softmax: with random weights the class scores are nearly uniform, the logits are
not, so they are what is compared.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tflite_support import ModelCache, assert_close, compare, cpu_has_vnni, quantization_steps, within_one_step


def mobilenet_v3_small() -> Any:
    import tensorflow as tf

    return tf.keras.applications.MobileNetV3Small(
        input_shape=(96, 96, 3), weights=None, classes=10, classifier_activation=None
    )


def efficientnet_b0() -> Any:
    import tensorflow as tf

    return tf.keras.applications.EfficientNetB0(
        input_shape=(96, 96, 3), weights=None, classes=10, classifier_activation=None
    )


def resnet50() -> Any:
    import tensorflow as tf

    return tf.keras.applications.ResNet50(
        input_shape=(64, 64, 3), weights=None, classes=10, classifier_activation=None
    )


#: name -> (builder, input image); images in the range the networks' preprocessing expects
APPLICATIONS: dict[str, tuple[Callable[[], Any], np.ndarray]] = {
    "mobilenet_v3_small": (mobilenet_v3_small,
                           np.random.default_rng(5).uniform(0, 255, (1, 96, 96, 3)).astype(np.float32)),
    "efficientnet_b0": (efficientnet_b0, np.random.default_rng(6).uniform(0, 255, (1, 96, 96, 3)).astype(np.float32)),
    "resnet50": (resnet50, np.random.default_rng(7).uniform(-1, 1, (1, 64, 64, 3)).astype(np.float32)),
}


def _made(name: str, mode: str, models: ModelCache) -> Any:
    build, image = APPLICATIONS[name]
    return models.from_keras(f"{name}_{mode}", build, [image], mode)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["float", "fp16"])
@pytest.mark.parametrize("name", sorted(APPLICATIONS))
def test_float_weights(name: str, mode: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    made = _made(name, mode, tflite_models)
    compared = compare(made.path, made.inputs, tmp_path)
    scale = max(float(np.abs(e).max()) for e in compared.expected)
    assert scale > 0
    assert_close(compared, atol=1e-5 * scale, rtol=1e-4)


#: Full-integer models whose logits miss the one-step criterion, and why (measured on the
#: 2-core AVX2 test machine, OpenVINO 2026.4). Deep networks: TFLite rounds every layer in
#: integer arithmetic, the IR in f32 followed by FakeQuantize; one layer agrees within one
#: step (ResNet50's first convolution exactly on 99.95 % of its elements), but the one-step
#: differences compound over 50 layers (with the int8 kernels off, LP_TRANSFORMS_MODE=False:
#: 77 % within one step at the last residual Add, 7 of the 10 logits). MobileNetV3: the IR run in f32 (the int8
#: kernels off) matches LiteRT exactly; OpenVINO's int8 kernels on a CPU without VNNI are
#: off by up to 255 steps (see docs/tflite.md on 16-bit saturation).
INT8_SHORTFALLS = {
    "resnet50": "one-step rounding differences compound over 50 layers (3 of 10 logits within one step; "
                "7 with the int8 kernels off)",
    "efficientnet_b0": "one-step rounding differences compound over the network (1 of 10 logits within one step; "
                       "4 with the int8 kernels off)",
}


def _full_integer_cases() -> list[Any]:
    cases = []
    for name in sorted(APPLICATIONS):
        marks = []
        if name in INT8_SHORTFALLS:
            marks.append(pytest.mark.xfail(reason=INT8_SHORTFALLS[name], strict=True))
        elif name == "mobilenet_v3_small" and not cpu_has_vnni():
            marks.append(pytest.mark.xfail(reason="OpenVINO's int8 kernels without VNNI (the f32 run of the IR "
                                           "matches)", strict=True))
        cases.append(pytest.param(name, marks=marks))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize("name", _full_integer_cases())
def test_full_integer(name: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    made = _made(name, "int8", tflite_models)
    compared = compare(made.path, made.inputs, tmp_path)
    assert "FakeQuantize" in compared.op_types()
    assert min(within_one_step(compared, quantization_steps(made.path))) >= 0.999


@pytest.mark.slow
def test_full_integer_mobilenet_v3_in_f32(tflite_models: ModelCache, tmp_path: Path) -> None:
    """The int8 MobileNetV3's IR run with OpenVINO's int8 kernels off (the float emulation of
    its FakeQuantize graph): within one step of LiteRT, which tells the IR from the kernels."""
    import openvino as ov
    from tflite_support import interpreter_inputs, run_reference

    made = _made("mobilenet_v3_small", "int8", tflite_models)
    feed = interpreter_inputs(made.path, made.inputs)
    expected, names = run_reference(made.path, feed)
    compare(made.path, made.inputs, tmp_path)  # writes the IR
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / f"{made.path.stem}.xml")), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32", "LP_TRANSFORMS_MODE": False})
    got = compiled(list(feed.values()))[0]
    step = quantization_steps(made.path)[0]
    assert step > 0
    assert float(np.mean(np.abs(got - expected[names[0]]) <= step * 1.0001)) >= 0.999
