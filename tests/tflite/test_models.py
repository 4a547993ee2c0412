"""Keras networks (random weights, no download) and small functions with operators CNN
classifiers do not use, converted by TensorFlow's TFLite converter as float, float16
weights, dynamic-range and full-integer; irconv's IR run by OpenVINO against the LiteRT
interpreter."""

from __future__ import annotations

from collections.abc import Callable
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


def test_small_cnn_int8_kernels_option(tflite_models: ModelCache, tmp_path: Path) -> None:
    """``--tflite-int8-kernels``: the FakeQuantize form OpenVINO's int8 kernels run (a
    FakeQuantize on each quantized tensor, none of LiteRT's integer arithmetic); on a small
    network it still agrees within one step, and keeps one Transpose."""
    made = tflite_models.from_keras("small_cnn_int8", small_cnn, [IMAGE_32], "int8")
    default = compare(made.path, made.inputs, tmp_path / "default")
    compared = compare(made.path, made.inputs, tmp_path, tflite_int8_kernels=True)
    assert "Round" in default.op_types() and "Round" not in compared.op_types()
    assert compared.op_types().count("FakeQuantize") > default.op_types().count("FakeQuantize")
    assert min(within_one_step(compared, quantization_steps(made.path))) >= 0.999
    assert _transposes(compared.model) <= 1


def test_small_cnn_full_integer_keeps_one_transpose(tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_keras("small_cnn_int8", small_cnn, [IMAGE_32], "int8")
    assert _transposes(compare(made.path, made.inputs, tmp_path).model) <= 1


def test_int8_weights_are_stored_as_int8(tflite_models: ModelCache, tmp_path: Path) -> None:
    """Every convolution and matrix product reads Const(i8) -> Convert (-> Multiply by the
    scale, unless it reads the integers: extractors/integer.py)."""
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


def biased_cnn() -> Any:
    """Small weights and large biases: the integer biases of the full-int8 model (bias over
    input scale times weight scale) pass 65504, which f16 cannot hold."""
    import tensorflow as tf

    small = tf.keras.initializers.RandomNormal(stddev=0.01, seed=1)
    large = tf.keras.initializers.RandomUniform(0.2, 0.6, seed=2)
    inp = tf.keras.Input((16, 16, 3), batch_size=1)
    x = tf.keras.layers.Conv2D(16, 3, padding="same", kernel_initializer=small, bias_initializer=large)(inp)
    x = tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu")(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    x = tf.keras.layers.Dense(10, kernel_initializer=small, bias_initializer=large)(x)
    return tf.keras.Model(inp, x)


def test_full_integer_is_exact_with_default_compression(tflite_models: ModelCache, tmp_path: Path) -> None:
    """With the default f16 compression, the exact integer arithmetic of a full-int8 model
    keeps its constants f32 (integer biases beyond 65504, requantization multipliers, the
    output scale): the outputs equal LiteRT's exactly, as they do with f32 weights."""
    image = np.random.default_rng(1).uniform(-1, 1, (1, 16, 16, 3)).astype(np.float32)
    made = tflite_models.from_keras("biased_cnn_int8", biased_cnn, [image], "int8")
    for compress in (False, True):
        compared = compare(made.path, made.inputs, tmp_path / str(compress), compress_to_fp16=compress)
        for got, expected in zip(compared.got, compared.expected, strict=True):
            np.testing.assert_array_equal(got, expected, err_msg=f"compress_to_fp16={compress}")


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


# ------------------------------------------------------------------ small functions
RNG = np.random.default_rng(11)


def _tf() -> Any:
    import tensorflow as tf

    return tf


def _data(*shape: int) -> np.ndarray:
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def _w(*shape: int) -> np.ndarray:
    return RNG.uniform(-0.5, 0.5, shape).astype(np.float32)


W_CONV, W_CONV2, W_UP, W_DENSE = _w(3, 3, 4, 8), _w(3, 3, 8, 8), _w(3, 3, 4, 8), _w(33, 8)

#: name -> (function, inputs): operators and operator combinations beyond the classifiers
#: above (resizing variants, rearrangements, dilation, signal processing, slicing masks,
#: indexing, sorting), each made by the converter from a tf.function.
FUNCTIONS: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "resize_variants": (lambda x: _tf().concat([
        _tf().image.resize(x, [12, 12], "bilinear"), _tf().image.resize(x, [12, 12], "nearest"),
        _tf().compat.v1.image.resize_nearest_neighbor(x, [11, 13], align_corners=True)[:, :1, :1]
        + _tf().compat.v1.image.resize_bilinear(x, [12, 12], align_corners=True)], -1), [_data(1, 8, 8, 4)]),
    "resize_down_nearest": (lambda x: _tf().image.resize(_tf().nn.conv2d(x, W_CONV, 1, "SAME"), [5, 3], "nearest"),
                            [_data(1, 8, 8, 4)]),
    "depth_space_conv": (lambda x: _tf().nn.depth_to_space(_tf().nn.conv2d(
        _tf().nn.space_to_depth(x, 2), _w(1, 1, 16, 16), 1, "SAME"), 2), [_data(1, 8, 8, 4)]),
    "dilated_conv_chain": (lambda x: _tf().nn.relu(_tf().nn.conv2d(_tf().nn.relu(
        _tf().nn.conv2d(x, W_CONV, 1, "SAME", dilations=2)), W_CONV2, 1, "VALID", dilations=3)), [_data(1, 16, 16, 4)]),
    "transpose_conv_relu": (lambda x: _tf().nn.relu(_tf().nn.conv2d_transpose(
        _tf().nn.conv2d(x, W_UP, 2, "SAME"), _w(3, 3, 4, 8), [1, 8, 8, 4], 2, "SAME")), [_data(1, 8, 8, 4)]),
    "gather_scatter": (lambda x, i: _tf().scatter_nd(i, _tf().gather(_tf().reshape(x, [8, 8]), i[:, 0]) @ _w(8, 8),
                                                     [10, 8]), [_data(1, 8, 8, 1), np.array([[1], [4], [7]], np.int32)]),
    "stft_magnitude": (lambda x: _tf().abs(_tf().signal.stft(x, 32, 16, 32)), [_data(2, 128)]),
    "mel_spectrogram": (lambda x: _tf().matmul(_tf().abs(_tf().signal.stft(x, 64, 32)), W_DENSE), [_data(1, 256)]),
    "strided_slice_ellipsis_newaxis": (lambda x: _tf().reduce_sum(x[_tf().newaxis, ..., ::-1, 1], 0) * 2.0,
                                       [_data(2, 4, 6, 4)]),
    "cumsum_topk_argmax": (lambda x: (_tf().math.top_k(_tf().cumsum(x, 1), 3)[0], _tf().argmax(x, -1)),
                           [_data(4, 10)]),
    "where_select_v2": (lambda a, b: _tf().where(a > 0.0, a * 2.0, _tf().where(b > 0.5, b, 0.0)),
                        [_data(3, 1, 4), _data(1, 5, 4)]),
    "where_coordinates": (lambda x: _tf().cast(_tf().where(x > 0.5), _tf().float32), [_data(3, 4)]),
    "reverse_sequence_dense": (lambda x: _tf().reverse_sequence(x, [2, 4, 1], seq_axis=1, batch_axis=0) @ _w(5, 3),
                               [_data(3, 4, 5)]),
    "matrix_band_eye": (lambda x: _tf().linalg.band_part(x, 1, 0) + _tf().eye(5), [_data(2, 5, 5)]),
    "sort_argsort": (lambda x: _tf().sort(x, -1) + _tf().cast(_tf().argsort(x, -1), _tf().float32), [_data(3, 7)]),
    "segment_mean": (lambda x: _tf().math.unsorted_segment_mean(x, [0, 1, 0, 2], 3), [_data(4, 3)]),
    "lrn_elu": (lambda x: _tf().nn.elu(_tf().nn.local_response_normalization(x, 2)), [_data(1, 4, 4, 8)]),
}

#: Converter modes the tests run the functions in (full-integer ones are in the bench)
FUNCTION_MODES = ("float", "dynamic")


@pytest.mark.parametrize("mode", FUNCTION_MODES)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function(name: str, mode: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    fn, inputs = FUNCTIONS[name]
    made = tflite_models.from_function(f"fn_{name}_{mode}", fn, inputs, mode)
    # dynamic range: LiteRT quantizes the activations of weighted ops on the fly
    tolerance = 2e-2 if mode == "dynamic" else 1e-4
    assert_close(compare(made.path, made.inputs, tmp_path), atol=tolerance, rtol=tolerance)


def _mostly_zero(*shape: int) -> np.ndarray:
    weights = _w(*shape)
    weights[RNG.random(shape) < 0.85] = 0
    return weights


W_SPARSE, W_SPARSE2 = _mostly_zero(16, 12), _mostly_zero(12, 6)


def test_sparse_weights(tflite_models: ModelCache, tmp_path: Path) -> None:
    """Mostly-zero weights stored sparse (DENSIFY of a sparse constant): made dense when read."""
    made = tflite_models.from_function("sparse_mlp", lambda x: _tf().nn.relu(x @ W_SPARSE) @ W_SPARSE2,
                                       [_data(2, 16)], "sparse")
    from ai_edge_litert.interpreter import Interpreter

    assert "DENSIFY" in {op["op_name"] for op in Interpreter(model_path=str(made.path))._get_ops_details()}  # noqa: SLF001
    assert_close(compare(made.path, made.inputs, tmp_path), atol=1e-5, rtol=1e-5)
