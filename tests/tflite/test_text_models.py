"""Text models (token ids -> Embedding -> recurrent layers -> classifier) converted by
TensorFlow's TFLite converter; irconv's IR run by OpenVINO against the LiteRT interpreter.

TensorFlow's converter turns Keras 3 recurrent layers into WHILE loops over the time axis
(irconv: Loop), and tf_keras (Keras 2) LSTM layers into the fused
UNIDIRECTIONAL_SEQUENCE_LSTM operator (a Bidirectional layer: two of them around
REVERSE_V2). Both are tested.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tflite_support import ModelCache, assert_close, compare

VOCABULARY, STEPS = 60, 12
TOKENS = np.random.default_rng(13).integers(0, VOCABULARY, (1, STEPS)).astype(np.int32)


def _text_model(keras: Any, recurrent: Callable[[Any], list[Any]]) -> Any:
    inputs = keras.Input((STEPS,), batch_size=1, dtype="int32")
    x = keras.layers.Embedding(VOCABULARY, 16)(inputs)
    for layer in recurrent(keras):
        x = layer(x)
    return keras.Model(inputs, keras.layers.Dense(4, activation="softmax")(x))


def _stacked_lstm(keras: Any) -> list[Any]:
    return [keras.layers.LSTM(16, return_sequences=True), keras.layers.LSTM(8)]


def _bidirectional_lstm(keras: Any) -> list[Any]:
    return [keras.layers.Bidirectional(keras.layers.LSTM(8, return_sequences=True)),
            keras.layers.GlobalAveragePooling1D()]


def _gru(keras: Any) -> list[Any]:
    return [keras.layers.GRU(12)]


def _simple_rnn(keras: Any) -> list[Any]:
    return [keras.layers.SimpleRNN(12)]


LAYERS = {"stacked_lstm": _stacked_lstm, "bidirectional_lstm": _bidirectional_lstm, "gru": _gru,
          "simple_rnn": _simple_rnn}


def _keras3() -> Any:
    import tensorflow as tf

    return tf.keras


def _tf_keras() -> Any:
    """tf_keras, an optional test dependency: it requires the ``tensorflow`` distribution,
    which the tests' ``tensorflow-cpu`` stands for, so it is installed with
    ``pip install --no-deps tf-keras`` (the version of TensorFlow's)."""
    try:
        import tf_keras
    except ImportError:
        pytest.skip("tf_keras is not installed (pip install --no-deps tf-keras)")
    return tf_keras


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_keras_recurrent_as_while_loops(name: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_keras(f"text_{name}_keras3", lambda: _text_model(_keras3(), LAYERS[name]), [TOKENS])
    compared = compare(made.path, made.inputs, tmp_path)
    assert_close(compared, atol=1e-5, rtol=1e-4)
    assert "Loop" in compared.op_types()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["stacked_lstm", "bidirectional_lstm"])
def test_fused_unidirectional_sequence_lstm(name: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    """tf_keras LSTMs become UNIDIRECTIONAL_SEQUENCE_LSTM with cell_clip 10: TensorIterators."""
    keras = _tf_keras()
    made = tflite_models.from_keras(f"text_{name}_tf_keras", lambda: _text_model(keras, LAYERS[name]), [TOKENS])
    compared = compare(made.path, made.inputs, tmp_path)
    assert_close(compared, atol=1e-5, rtol=1e-4)
    assert "TensorIterator" in compared.op_types()
