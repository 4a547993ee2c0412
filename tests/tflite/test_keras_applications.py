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
from tflite_support import ModelCache, assert_close, compare, quantization_steps, within_one_step


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


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(APPLICATIONS))
def test_full_integer(name: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    """Logits within one step of LiteRT's: the integer forms of the convolutions, ADD,
    MUL, MEAN, LOGISTIC and HARD_SWISH (irconv_tflite/extractors/integer.py) compute
    LiteRT's int8 results, so no rounding difference travels through the network."""
    made = _made(name, "int8", tflite_models)
    compared = compare(made.path, made.inputs, tmp_path)
    assert "FakeQuantize" in compared.op_types()  # the model input's grid
    assert min(within_one_step(compared, quantization_steps(made.path))) >= 0.999
