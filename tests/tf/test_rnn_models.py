"""Keras recurrent text classifiers (Embedding -> RNN -> Dense), random seeded weights.

Frozen with convert_variables_to_constants_v2, each RNN layer is a TF1 while frame over
TensorLists; compared with Keras within 1e-4. Masked inputs (mask_zero=True) exercise the
masking selects inside the loop; Bidirectional runs a reversed loop too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

CASES = [
    # layer, mask_zero, return_sequences, bidirectional
    ("LSTM", False, False, False),
    ("GRU", False, False, False),
    ("SimpleRNN", False, False, False),
    ("LSTM", True, False, False),
    ("GRU", True, True, False),
    ("SimpleRNN", True, True, False),
    ("LSTM", False, True, True),
    ("GRU", True, False, True),
]


def _frozen_classifier(layer: str, mask: bool, sequences: bool, bidirectional: bool, path: Path) -> Any:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    tf.keras.utils.set_random_seed(0)
    tokens = tf.keras.Input((None,), dtype="int32")
    x = tf.keras.layers.Embedding(50, 16, mask_zero=mask)(tokens)
    rnn = getattr(tf.keras.layers, layer)(12, return_sequences=sequences)
    x = (tf.keras.layers.Bidirectional(rnn) if bidirectional else rnn)(x)
    model = tf.keras.Model(tokens, tf.keras.layers.Dense(3)(x))
    spec = tf.TensorSpec((None, None), tf.int32, name="in0")
    frozen = convert_variables_to_constants_v2(tf.function(lambda t: model(t)).get_concrete_function(spec))
    graph_def = frozen.graph.as_graph_def()
    ops = {n.op for n in graph_def.node}
    assert {"Enter", "TensorListSetItem"} <= ops, sorted(ops)
    path.write_bytes(graph_def.SerializeToString())
    return model


@pytest.mark.parametrize(("layer", "mask", "sequences", "bidirectional"), CASES)
def test_rnn_text_classifier(
    run_converted: Any, tmp_path: Path, layer: str, mask: bool, sequences: bool, bidirectional: bool
) -> None:
    model = _frozen_classifier(layer, mask, sequences, bidirectional, tmp_path / "model.pb")
    rng = np.random.default_rng(0)
    for batch, steps in ((2, 8), (3, 5)):  # one IR, several batch sizes and sequence lengths
        tokens = rng.integers(1, 50, (batch, steps)).astype(np.int32)
        if mask:
            tokens[0, steps // 2 :] = 0  # padded tails of different lengths
            tokens[1, 2:] = 0
        (got,), ir = run_converted(tmp_path / "model.pb", [tokens], tmp_path)
        expected = np.asarray(model(tokens))
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, atol=1e-4, rtol=1e-4)
    assert "Loop" in {op.get_type_name() for op in ir.get_ordered_ops()}


@pytest.mark.parametrize(("layer", "bidirectional"), [("LSTM", False), ("GRU", True)])
def test_rnn_saved_model(run_converted: Any, tmp_path: Path, layer: str, bidirectional: bool) -> None:
    """A SavedModel keeps functional While loops (not lowered): TensorLists are variant loop variables."""
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    tokens = tf.keras.Input((8,), dtype="int32")
    x = tf.keras.layers.Embedding(50, 16, mask_zero=True)(tokens)
    rnn = getattr(tf.keras.layers, layer)(12)
    x = (tf.keras.layers.Bidirectional(rnn) if bidirectional else rnn)(x)
    model = tf.keras.Model(tokens, tf.keras.layers.Dense(3)(x))
    tf.saved_model.save(model, str(tmp_path / "saved"))
    ids = np.random.default_rng(1).integers(1, 50, (2, 8)).astype(np.int32)
    ids[0, 3:] = 0
    (got,), _ = run_converted(tmp_path / "saved", [ids], tmp_path)
    np.testing.assert_allclose(got, np.asarray(model(ids)), atol=1e-4, rtol=1e-4)


def _variant(which: str) -> Any:
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    tokens = tf.keras.Input((8,), dtype="int32")
    x = tf.keras.layers.Embedding(50, 16, mask_zero=True)(tokens)
    if which == "unrolled":
        x = tf.keras.layers.LSTM(12, unroll=True)(x)
    elif which == "stacked_backwards":
        x = tf.keras.layers.LSTM(12, return_sequences=True)(x)
        x = tf.keras.layers.GRU(10, go_backwards=True)(x)
    elif which == "gru_reset_before_state":
        x = tf.keras.layers.GRU(12, reset_after=False, return_state=True)(x)[1]
    else:  # "initial_state"
        h = tf.keras.layers.Dense(12)(tf.keras.layers.GlobalAveragePooling1D()(x))
        x = tf.keras.layers.LSTM(12)(x, initial_state=[h, h])
    return tf.keras.Model(tokens, tf.keras.layers.Dense(3)(x))


@pytest.mark.parametrize("which", ["unrolled", "stacked_backwards", "gru_reset_before_state", "initial_state"])
def test_rnn_variants(run_converted: Any, tmp_path: Path, which: str) -> None:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    model = _variant(which)
    spec = tf.TensorSpec((None, 8), tf.int32, name="in0")
    frozen = convert_variables_to_constants_v2(tf.function(lambda t: model(t)).get_concrete_function(spec))
    (tmp_path / "model.pb").write_bytes(frozen.graph.as_graph_def().SerializeToString())
    tokens = np.random.default_rng(0).integers(1, 50, (3, 8)).astype(np.int32)
    tokens[0, 5:] = 0
    tokens[2, 1:] = 0
    (got,), _ = run_converted(tmp_path / "model.pb", [tokens], tmp_path)
    np.testing.assert_allclose(got, np.asarray(model(tokens)), atol=1e-4, rtol=1e-4)
