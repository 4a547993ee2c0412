"""Keras networks (random weights, no download) converted by TensorFlow's TFLite converter,
float, float16 weights, dynamic-range and full-integer; irconv's IR run by OpenVINO against
the LiteRT interpreter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tflite_support import ModelCache, assert_close, compare, quantization_steps, within_one_step


def small_cnn() -> Any:
    """conv/depthwise/pool/residual add/global pool/dense: a MobileNet in miniature."""
    import tensorflow as tf

    inp = tf.keras.Input((32, 32, 3), batch_size=1)
    x = tf.keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(inp)
    y = tf.keras.layers.DepthwiseConv2D(3, padding="same")(x)
    y = tf.keras.layers.ReLU(6.0)(y)
    y = tf.keras.layers.Conv2D(8, 1)(y)
    x = tf.keras.layers.Add()([x, y])
    x = tf.keras.layers.MaxPool2D()(x)
    x = tf.keras.layers.Conv2D(16, 3, padding="valid", activation="relu")(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    x = tf.keras.layers.Dense(10, activation="softmax")(x)
    return tf.keras.Model(inp, x)


def mobilenet_v2() -> Any:
    import tensorflow as tf

    return tf.keras.applications.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35, weights=None, classes=10)


IMAGE_32 = np.random.default_rng(1).uniform(-1, 1, (1, 32, 32, 3)).astype(np.float32)
IMAGE_96 = np.random.default_rng(2).uniform(-1, 1, (1, 96, 96, 3)).astype(np.float32)


def _transposes(model: Any) -> int:
    return sum(op.get_type_name() == "Transpose" for op in model.get_ops())


@pytest.mark.parametrize("mode", ["float", "fp16", "dynamic"])
def test_small_cnn_float_weights(mode: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_keras(f"small_cnn_{mode}", small_cnn, [IMAGE_32], mode)
    compared = compare(made.path, made.inputs, tmp_path)
    # dynamic range: LiteRT quantizes the activations on the fly, irconv computes in float
    tolerance = 2e-2 if mode == "dynamic" else 1e-5
    assert_close(compared, atol=tolerance, rtol=tolerance)
    assert _transposes(compared.model) <= 1


@pytest.mark.parametrize("mode", ["int8", "int8_io", "int16x8"])
def test_small_cnn_full_integer(mode: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_keras(f"small_cnn_{mode}", small_cnn, [IMAGE_32], mode)
    compared = compare(made.path, made.inputs, tmp_path)
    assert min(within_one_step(compared, quantization_steps(made.path))) >= 0.999
    assert "FakeQuantize" in compared.op_types()
    assert _transposes(compared.model) <= 1


def test_small_cnn_full_integer_keeps_one_transpose(tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_keras("small_cnn_int8", small_cnn, [IMAGE_32], "int8")
    assert _transposes(compare(made.path, made.inputs, tmp_path).model) <= 1


def test_int8_weights_are_stored_as_int8(tflite_models: ModelCache, tmp_path: Path) -> None:
    """Every convolution and matrix product reads Const(i8) -> Convert -> Multiply."""
    made = tflite_models.from_keras("small_cnn_int8", small_cnn, [IMAGE_32], "int8")
    compared = compare(made.path, made.inputs, tmp_path)
    weighted = [op for op in compared.model.get_ops()
                if op.get_type_name() in ("Convolution", "GroupConvolution", "MatMul")]
    assert weighted
    for op in weighted:
        chain = op.input_value(1).get_node()
        while chain.get_type_name() in ("Multiply", "Subtract", "Convert"):
            chain = chain.input_value(0).get_node()
        assert chain.get_type_name() == "Constant" and chain.get_element_type().get_type_name() == "i8", op


@pytest.mark.slow
def test_mobilenet_v2_float(tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_keras("mobilenet_v2_float", mobilenet_v2, [IMAGE_96], "float")
    compared = compare(made.path, made.inputs, tmp_path)
    assert_close(compared, atol=1e-5, rtol=1e-4)
    assert _transposes(compared.model) <= 1


@pytest.mark.slow
def test_mobilenet_v2_fp16_weights(tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_keras("mobilenet_v2_fp16", mobilenet_v2, [IMAGE_96], "fp16")
    compared = compare(made.path, made.inputs, tmp_path)
    assert_close(compared, atol=1e-5, rtol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["int8", "int8_io"])
def test_mobilenet_v2_full_integer(mode: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_keras(f"mobilenet_v2_{mode}", mobilenet_v2, [IMAGE_96], mode)
    compared = compare(made.path, made.inputs, tmp_path)
    assert min(within_one_step(compared, quantization_steps(made.path))) >= 0.999
    assert _transposes(compared.model) <= 1


def test_cli_verify_against_litert(tflite_models: ModelCache, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``irconv convert --verify`` runs the IR and the LiteRT interpreter on the same inputs."""
    from irconv.cli.main import main

    made = tflite_models.from_keras("small_cnn_float", small_cnn, [IMAGE_32], "float")
    code = main(["convert", str(made.path), "-o", str(tmp_path / "small.xml"), "--verify"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "verified 1 output(s) against tflite" in out.out + out.err
    assert (tmp_path / "small.xml").exists()
