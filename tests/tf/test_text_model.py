"""A small BERT-style Keras encoder (embeddings, attention, LayerNorm, GELU) as a SavedModel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def test_transformer_encoder_saved_model(run_converted: Any, tmp_path: Path) -> None:
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    ids = tf.keras.Input((16,), dtype="int32", name="ids")
    x = tf.keras.layers.Embedding(100, 32)(ids) + tf.keras.layers.Embedding(16, 32)(tf.range(16))
    for _ in range(2):
        x = tf.keras.layers.LayerNormalization()(x + tf.keras.layers.MultiHeadAttention(4, 8)(x, x))
        ffn = tf.keras.layers.Dense(32)(tf.keras.layers.Dense(64, activation="gelu")(x))
        x = tf.keras.layers.LayerNormalization()(x + ffn)
    model = tf.keras.Model(ids, tf.keras.layers.Dense(3)(x[:, 0]))
    path = tmp_path / "encoder"
    tf.saved_model.save(model, str(path))
    tokens = np.random.default_rng(0).integers(0, 100, (2, 16)).astype(np.int32)
    (got,), _ = run_converted(path, [tokens], tmp_path)
    np.testing.assert_allclose(got, np.asarray(model(tokens)), atol=1e-5)
