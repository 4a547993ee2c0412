"""Each Keras layer class the .keras reader covers, against Keras' own predictions.

Every model gets seeded random weights (BatchNormalization statistics included), is saved
as .keras, converted without TensorFlow, run on OpenVINO CPU and compared with
``model.predict`` on the same random inputs (``keras_check`` in conftest).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

keras = pytest.importorskip("keras")
pytest.importorskip("openvino")
L = keras.layers

ACTIVATIONS = [
    "relu",
    "relu6",
    "sigmoid",
    "hard_sigmoid",
    "tanh",
    "softmax",
    "swish",
    "silu",
    "gelu",
    "elu",
    "selu",
    "softplus",
    "softsign",
    "linear",
    "leaky_relu",
    "hard_swish",
    "hard_silu",
    "exponential",
    "mish",
    "log_softmax",
]


def _model(shape: tuple[int, ...], *layers: Any, dtype: str = "float32") -> Any:
    inputs = keras.Input(shape, dtype=dtype)
    x = inputs
    for layer in layers:
        x = layer(x)
    return keras.Model(inputs, x)


def test_every_named_activation(keras_check: Callable[..., Any]) -> None:
    inputs = keras.Input((6,))
    outputs = [L.Dense(4, activation=name, name=f"dense_{name}")(inputs) for name in ACTIVATIONS]
    keras_check(keras.Model(inputs, outputs), atol=1e-4)


SINGLE_LAYER: dict[str, Callable[[], Any]] = {
    "dense_rank3": lambda: _model((5, 6), L.Dense(3, activation="relu")),
    "dense_rank4_no_bias": lambda: _model((2, 5, 6), L.Dense(3, use_bias=False)),
    "conv1d_causal_dilated": lambda: _model((12, 3), L.Conv1D(4, 3, padding="causal", dilation_rate=2)),
    "conv1d_same_strided": lambda: _model((12, 3), L.Conv1D(4, 3, strides=2, padding="same", activation="tanh")),
    "conv2d_valid": lambda: _model((9, 9, 3), L.Conv2D(4, (3, 2), strides=(2, 1))),
    "conv2d_same_dilated": lambda: _model((9, 9, 3), L.Conv2D(4, 3, padding="same", dilation_rate=2)),
    "conv2d_groups": lambda: _model((8, 8, 4), L.Conv2D(6, 3, groups=2, padding="same")),
    "conv3d": lambda: _model((6, 6, 6, 2), L.Conv3D(3, 3, padding="same", activation="relu")),
    "depthwise_conv2d": lambda: _model((8, 8, 3), L.DepthwiseConv2D(3, depth_multiplier=2, padding="same")),
    "depthwise_conv1d": lambda: _model((10, 3), L.DepthwiseConv1D(3)),
    "separable_conv2d": lambda: _model((8, 8, 3), L.SeparableConv2D(5, 3, depth_multiplier=2, activation="relu")),
    "separable_conv1d": lambda: _model((10, 3), L.SeparableConv1D(4, 3, padding="same")),
    "conv2d_transpose_same": lambda: _model((5, 5, 3), L.Conv2DTranspose(4, 3, strides=2, padding="same")),
    "conv2d_transpose_valid": lambda: _model((5, 5, 3), L.Conv2DTranspose(4, 3, strides=2)),
    "conv2d_transpose_small_kernel": lambda: _model((5, 5, 3), L.Conv2DTranspose(4, 1, strides=2)),
    "conv2d_transpose_output_padding": lambda: _model(
        (5, 5, 3), L.Conv2DTranspose(4, 3, strides=2, padding="same", output_padding=1)
    ),
    "conv1d_transpose": lambda: _model((7, 3), L.Conv1DTranspose(2, 4, strides=2, padding="same")),
    "batch_normalization": lambda: _model((6, 6, 3), L.BatchNormalization()),
    "batch_normalization_axis1_no_center": lambda: _model((4, 5), L.BatchNormalization(axis=1, center=False)),
    "layer_normalization": lambda: _model((5, 6), L.LayerNormalization()),
    "layer_normalization_two_axes": lambda: _model((4, 5, 6), L.LayerNormalization(axis=[2, 3])),
    "relu_layer": lambda: _model((10,), L.ReLU()),
    "relu_layer_clipped_leaky": lambda: _model((10,), L.ReLU(max_value=0.4, negative_slope=0.1)),
    "relu_layer_threshold": lambda: _model((10,), L.ReLU(threshold=0.2, negative_slope=0.3, max_value=1.0)),
    "leaky_relu_layer": lambda: _model((10,), L.LeakyReLU(negative_slope=0.1)),
    "prelu_layer": lambda: _model((4, 4, 3), L.PReLU()),
    "prelu_layer_shared_axes": lambda: _model((4, 4, 3), L.PReLU(shared_axes=[1, 2])),
    "elu_layer": lambda: _model((10,), L.ELU(alpha=0.5)),
    "softmax_layer": lambda: _model((3, 5), L.Softmax(axis=1)),
    "activation_layer": lambda: _model((10,), L.Activation("hard_sigmoid")),
    "dropouts": lambda: _model(
        (6, 6, 3),
        L.Dropout(0.5),
        L.SpatialDropout2D(0.5),
        L.GaussianNoise(1.0),
        L.ActivityRegularization(0.1),
        L.Conv2D(2, 1),
    ),
    "flatten_after_conv": lambda: _model((6, 6, 3), L.Conv2D(4, 3), L.Flatten(), L.Dense(2)),
    "reshape": lambda: _model((6, 4), L.Reshape((3, -1))),
    "permute": lambda: _model((2, 3, 4), L.Permute((3, 1, 2))),
    "repeat_vector": lambda: _model((5,), L.RepeatVector(3)),
    "max_pooling1d": lambda: _model((9, 3), L.MaxPooling1D(2)),
    "average_pooling1d_same": lambda: _model((9, 3), L.AveragePooling1D(3, strides=2, padding="same")),
    "max_pooling2d_same": lambda: _model((7, 7, 3), L.MaxPooling2D(3, strides=2, padding="same")),
    "average_pooling2d": lambda: _model((8, 8, 3), L.AveragePooling2D(2)),
    "average_pooling2d_same": lambda: _model((7, 7, 3), L.AveragePooling2D(3, strides=2, padding="same")),
    "max_pooling3d": lambda: _model((4, 4, 4, 2), L.MaxPooling3D(2)),
    "average_pooling3d": lambda: _model((4, 4, 4, 2), L.AveragePooling3D(2)),
    "global_average_pooling1d": lambda: _model((6, 3), L.GlobalAveragePooling1D()),
    "global_max_pooling2d_keepdims": lambda: _model((5, 5, 3), L.GlobalMaxPooling2D(keepdims=True)),
    "global_average_pooling3d": lambda: _model((3, 3, 3, 2), L.GlobalAveragePooling3D()),
    "global_max_pooling1d": lambda: _model((6, 3), L.GlobalMaxPooling1D()),
    "zero_padding1d": lambda: _model((5, 3), L.ZeroPadding1D((1, 2))),
    "zero_padding3d": lambda: _model((3, 3, 3, 2), L.ZeroPadding3D(1)),
    "cropping3d": lambda: _model((5, 5, 5, 2), L.Cropping3D(((1, 0), (0, 2), (1, 1)))),
    "upsampling3d": lambda: _model((2, 3, 2, 2), L.UpSampling3D((2, 1, 3))),
    "more_dropouts": lambda: _model((6,), L.GaussianDropout(0.3), L.AlphaDropout(0.3), L.Identity(), L.Dense(2)),
    "zero_padding2d": lambda: _model((4, 4, 3), L.ZeroPadding2D(((1, 0), (2, 3)))),
    "cropping1d": lambda: _model((7, 3), L.Cropping1D((1, 2))),
    "cropping2d": lambda: _model((7, 7, 3), L.Cropping2D(((1, 0), (2, 1)))),
    "upsampling1d": lambda: _model((4, 3), L.UpSampling1D(3)),
    "upsampling2d_nearest": lambda: _model((4, 4, 3), L.UpSampling2D((2, 3))),
    "upsampling2d_bilinear": lambda: _model((4, 4, 3), L.UpSampling2D(2, interpolation="bilinear")),
    "rescaling": lambda: _model((4, 4, 3), L.Rescaling(1 / 127.5, offset=-1.0)),
    "normalization_given": lambda: _model((3,), L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 0.25, 1.0])),
    "normalization_inverted": lambda: _model(
        (3,), L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 0.25, 1.0], invert=True)
    ),
    "embedding": lambda: _model((7,), L.Embedding(20, 4), dtype="int32"),
    "lstm_sequences": lambda: _model((6, 4), L.LSTM(5, return_sequences=True)),
    "lstm_last": lambda: _model((6, 4), L.LSTM(5)),
    "lstm_backwards_sequences": lambda: _model((6, 4), L.LSTM(5, go_backwards=True, return_sequences=True)),
    "gru_reset_after": lambda: _model((6, 4), L.GRU(5, return_sequences=True)),
    "gru_reset_before": lambda: _model((6, 4), L.GRU(5, reset_after=False)),
    "gru_backwards": lambda: _model((6, 4), L.GRU(5, go_backwards=True)),
    "simple_rnn": lambda: _model((6, 4), L.SimpleRNN(5, return_sequences=True)),
    "simple_rnn_relu_no_bias": lambda: _model((6, 4), L.SimpleRNN(5, activation="relu", use_bias=False)),
    "bidirectional_lstm_concat": lambda: _model((6, 4), L.Bidirectional(L.LSTM(5, return_sequences=True))),
    "bidirectional_gru_last": lambda: _model((6, 4), L.Bidirectional(L.GRU(5))),
    "bidirectional_sum": lambda: _model((6, 4), L.Bidirectional(L.LSTM(3, return_sequences=True), merge_mode="sum")),
    "bidirectional_mul": lambda: _model((6, 4), L.Bidirectional(L.SimpleRNN(3), merge_mode="mul")),
    "bidirectional_ave": lambda: _model((6, 4), L.Bidirectional(L.GRU(3, return_sequences=True), merge_mode="ave")),
}


@pytest.mark.parametrize("case", sorted(SINGLE_LAYER))
def test_layer(case: str, keras_check: Callable[..., Any]) -> None:
    keras_check(SINGLE_LAYER[case]())


def test_adapted_normalization(keras_check: Callable[..., Any]) -> None:
    import numpy as np

    layer = L.Normalization()
    layer.adapt(np.random.default_rng(1).normal(3.0, 2.0, (50, 4)).astype(np.float32))
    keras_check(_model((4,), layer), randomize=False)


def test_lstm_returning_states(keras_check: Callable[..., Any]) -> None:
    inputs = keras.Input((6, 4))
    sequence, hidden, cell = L.LSTM(5, return_sequences=True, return_state=True)(inputs)
    keras_check(keras.Model(inputs, [sequence, hidden, cell]))


def test_bidirectional_without_merge(keras_check: Callable[..., Any]) -> None:
    inputs = keras.Input((6, 4))
    forward, backward = L.Bidirectional(L.LSTM(3), merge_mode=None)(inputs)
    keras_check(keras.Model(inputs, [forward, backward]))


@pytest.mark.parametrize("layer", [L.Add, L.Subtract, L.Multiply, L.Average, L.Maximum, L.Minimum])
def test_merging(layer: Any, keras_check: Callable[..., Any]) -> None:
    a, b = keras.Input((3, 4)), keras.Input((3, 4))
    keras_check(keras.Model([a, b], layer()([a, b])))


def test_merging_three_inputs(keras_check: Callable[..., Any]) -> None:
    inputs = [keras.Input((5,)) for _ in range(3)]
    keras_check(keras.Model(inputs, [L.Add()(inputs), L.Average()(inputs), L.Concatenate()(inputs)]))


def test_concatenate_axis(keras_check: Callable[..., Any]) -> None:
    a, b = keras.Input((3, 4)), keras.Input((2, 4))
    keras_check(keras.Model([a, b], L.Concatenate(axis=1)([a, b])))


@pytest.mark.parametrize(
    ("shapes", "axes", "normalize"),
    [
        (((5,), (5,)), 1, False),
        (((3, 4), (6, 4)), (2, 2), False),
        (((3, 4), (3, 5)), (1, 1), False),
        (((5,), (5,)), 1, True),
    ],
)
def test_dot(shapes: Any, axes: Any, normalize: bool, keras_check: Callable[..., Any]) -> None:
    a, b = keras.Input(shapes[0]), keras.Input(shapes[1])
    keras_check(keras.Model([a, b], L.Dot(axes=axes, normalize=normalize)([a, b])))


def test_multi_head_self_attention(keras_check: Callable[..., Any]) -> None:
    x = keras.Input((5, 8))
    keras_check(keras.Model(x, L.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)))


def test_multi_head_cross_attention_with_key(keras_check: Callable[..., Any]) -> None:
    q, v, k = keras.Input((5, 8)), keras.Input((7, 6)), keras.Input((7, 3))
    layer = L.MultiHeadAttention(num_heads=3, key_dim=4, value_dim=2, output_shape=5)
    keras_check(keras.Model([q, v, k], layer(q, v, key=k)))


def test_nested_models_and_a_shared_layer(keras_check: Callable[..., Any]) -> None:
    block_in = keras.Input((6, 6, 3))
    block = keras.Model(block_in, L.Conv2D(3, 3, padding="same", activation="relu")(block_in), name="block")
    head = keras.Sequential([L.GlobalAveragePooling2D(), L.Dense(4), L.Dense(2)], name="head")
    shared = L.Dense(3, name="shared")
    inputs = keras.Input((6, 6, 3))
    x = block(block(inputs))  # one nested model called twice: the same weights
    y = head(x)
    keras_check(keras.Model(inputs, [y, shared(L.Dense(3)(shared(L.Dense(3)(y))))]))


def test_sequential_model(keras_check: Callable[..., Any]) -> None:
    model = keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            L.Conv2D(2, 3),
            L.BatchNormalization(),
            L.ReLU(),
            L.Flatten(),
            L.Dense(3, activation="softmax"),
        ]
    )
    keras_check(model)


def test_a_layer_without_extractor_goes_through_tensorflow(tmp_path: Any, convert_file: Callable[..., Any]) -> None:
    import numpy as np

    model = _model((5,), L.Dense(4), L.UnitNormalization())
    path = tmp_path / "m.keras"
    model.save(path)
    x = np.random.default_rng(0).standard_normal((2, 5)).astype(np.float32)
    got, _, notes = convert_file(path, [x], tmp_path)
    assert any("read through TensorFlow" in n and "UnitNormalization" in n for n in notes), notes
    np.testing.assert_allclose(got[0], model.predict(x, verbose=0), atol=1e-5)


@pytest.mark.parametrize(
    "layers",
    [
        pytest.param(lambda: [L.Embedding(20, 4, mask_zero=True), L.LSTM(3)], id="mask_zero"),
        pytest.param(
            lambda: [L.Embedding(20, 4), L.GRU(3, recurrent_activation="hard_sigmoid")], id="hard_sigmoid_gate"
        ),
    ],
)
def test_what_the_reader_leaves_to_tensorflow_converts_right(
    layers: Callable[[], list[Any]], tmp_path: Any, convert_file: Callable[..., Any]
) -> None:
    import numpy as np

    model = _model((6,), *layers(), dtype="int32")
    path = tmp_path / "m.keras"
    model.save(path)
    x = np.random.default_rng(0).integers(0, 20, (2, 6)).astype(np.int32)
    x[0, 4:] = 0  # padding the mask hides
    got, _, notes = convert_file(path, [x], tmp_path)
    assert any("read through TensorFlow" in n for n in notes), notes
    np.testing.assert_allclose(got[0], model.predict(x, verbose=0), atol=1e-5)


def test_sequential_built_without_an_input_layer(keras_check: Callable[..., Any]) -> None:
    model = keras.Sequential([L.Dense(4, activation="relu"), L.Dense(2)])
    model.build((None, 5))
    keras_check(model)


def test_transformer_block(keras_check: Callable[..., Any]) -> None:
    tokens = keras.Input((6,), dtype="int32")
    x = L.Embedding(30, 8)(tokens)
    attended = L.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
    x = L.LayerNormalization(epsilon=1e-6)(L.Add()([x, attended]))
    mixed = L.Dense(8)(L.Dense(16, activation="gelu")(x))
    x = L.LayerNormalization(epsilon=1e-6)(L.Add()([x, mixed]))
    keras_check(keras.Model(tokens, L.Dense(3, activation="softmax")(L.GlobalAveragePooling1D()(x))))


def test_states_feeding_other_layers(keras_check: Callable[..., Any]) -> None:
    inputs = keras.Input((5, 3))
    _, hidden, cell = L.LSTM(4, return_state=True)(inputs)
    keras_check(keras.Model(inputs, L.Concatenate()([L.Dense(2)(hidden), cell])))


def test_rescaling_uint8_images(keras_check: Callable[..., Any]) -> None:
    import numpy as np

    model = _model((4, 4, 3), L.Rescaling(1 / 255.0), L.Conv2D(2, 3), dtype="uint8")
    images = np.random.default_rng(0).integers(0, 256, (2, 4, 4, 3)).astype(np.uint8)
    keras_check(model, inputs=[images])


def test_channels_first_layers(keras_check: Callable[..., Any]) -> None:
    """The layers TensorFlow's CPU kernels run channels-first (its convolutions and pooling do not)."""
    first = {"data_format": "channels_first"}
    inputs = keras.Input((3, 4, 4))
    x = L.BatchNormalization(axis=1)(inputs)
    x = L.Cropping2D(((1, 0), (0, 1)), **first)(L.ZeroPadding2D(1, **first)(L.UpSampling2D(2, **first)(x)))
    keras_check(keras.Model(inputs, [L.Flatten(**first)(x), L.GlobalAveragePooling2D(**first)(x)]))
