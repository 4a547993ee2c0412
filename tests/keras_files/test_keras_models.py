"""Whole models saved as .keras: Keras' predictions, and an IR no larger than the same
model's SavedModel (``model.export()``) gives.

The .keras route builds each layer's ops from its config; the SavedModel route converts the
traced graph, whose dynamic-shape arithmetic (conv_transpose output shapes, batch-size
slices) and recurrent loops leave more layers. Counted without Const layers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

keras = pytest.importorskip("keras")
pytest.importorskip("openvino")
L = keras.layers


def conv_autoencoder() -> Any:
    inputs = keras.Input((28, 28, 1))
    x = L.Conv2D(16, 3, activation="relu", padding="same")(inputs)
    x = L.MaxPooling2D()(x)
    x = L.Conv2D(8, 3, activation="relu", padding="same")(x)
    x = L.MaxPooling2D()(x)
    x = L.Conv2DTranspose(8, 3, strides=2, activation="relu", padding="same")(x)
    x = L.Conv2DTranspose(16, 3, strides=2, activation="relu", padding="same")(x)
    return keras.Model(inputs, L.Conv2D(1, 3, activation="sigmoid", padding="same")(x))


def bilstm_text_model() -> Any:
    inputs = keras.Input((20,), dtype="int32")
    x = L.Embedding(1000, 32)(inputs)
    x = L.Bidirectional(L.LSTM(16, return_sequences=True))(x)
    x = L.GlobalMaxPooling1D()(x)
    x = L.Dense(16, activation="relu")(x)
    x = L.Dropout(0.5)(x)
    return keras.Model(inputs, L.Dense(1, activation="sigmoid")(x))


def mobilenet_v2() -> Any:
    return keras.applications.MobileNetV2(weights=None, input_shape=(96, 96, 3), classifier_activation=None)


def efficientnet_v2_b0() -> Any:
    return keras.applications.EfficientNetV2B0(weights=None, input_shape=(64, 64, 3), classifier_activation=None)


# name -> (builder, only BatchNorm statistics randomised: deep networks keep Keras' seeded weights)
MODELS: dict[str, tuple[Callable[[], Any], bool]] = {
    "conv_autoencoder": (conv_autoencoder, False),
    "bilstm_text_model": (bilstm_text_model, False),
    "mobilenet_v2": (mobilenet_v2, True),
    "efficientnet_v2_b0": (efficientnet_v2_b0, True),
}
SLOW = {"efficientnet_v2_b0", "mobilenet_v2"}  # over 20 s each here: python -m pytest -m slow


def _computing_layers(ir: Any) -> list[str]:
    return [op.get_type_name() for op in ir.get_ordered_ops() if op.get_type_name() != "Constant"]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(MODELS)])
def test_model_matches_keras_and_is_no_larger_than_its_saved_model(name: str, tmp_path: Path, helpers: Any) -> None:
    build, batch_norm_only = MODELS[name]
    keras.utils.set_random_seed(0)
    model = build()
    rng = np.random.default_rng(0)
    helpers.randomize_weights(model, rng, batch_norm_only=batch_norm_only)
    model.save(tmp_path / "model.keras")
    model.export(str(tmp_path / "saved_model"), verbose=False)
    inputs = helpers.random_inputs(model, rng, batch=1)
    expected = np.asarray(model.predict(inputs[0], verbose=0))

    (got,), ir, notes = helpers.convert(tmp_path / "model.keras", inputs, tmp_path)
    assert not [n for n in notes if "read through TensorFlow" in n], notes
    scale = max(float(np.abs(expected).max()), 1.0)
    np.testing.assert_allclose(got, expected, atol=2e-5 * scale, rtol=0)

    _, saved_ir, _ = helpers.convert(tmp_path / "saved_model", inputs, tmp_path)
    from_keras, from_saved = _computing_layers(ir), _computing_layers(saved_ir)
    assert len(from_keras) <= len(from_saved), (len(from_keras), len(from_saved))
    assert from_keras.count("Transpose") <= from_saved.count("Transpose")
