"""A small Keras 3-D CNN (Conv3D, BatchNorm, ReLU, MaxPooling3D, global pooling, Dense) with
seeded random weights and BatchNorm statistics, frozen, converted and run against TensorFlow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tests.tf.conftest import randomize_batch_norms


def test_cnn3d_frozen_graph(run_converted: Any, tmp_path: Path) -> None:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    tf.keras.utils.set_random_seed(0)
    layers = tf.keras.layers
    clip = layers.Input((8, 12, 12, 3), name="clip")
    x = layers.Conv3D(8, 3, padding="same", use_bias=False)(clip)
    x = layers.ReLU()(layers.BatchNormalization()(x))
    x = layers.MaxPooling3D(pool_size=(1, 2, 2))(x)
    x = layers.Conv3D(16, (3, 3, 3), strides=(2, 1, 1), padding="valid", activation="relu")(x)
    x = layers.AveragePooling3D(pool_size=2, padding="same")(x)
    x = layers.GlobalAveragePooling3D()(x)
    model = tf.keras.Model(clip, layers.Dense(5)(layers.Dense(12, activation="relu")(x)))
    rng = np.random.default_rng(0)
    randomize_batch_norms(model, rng)
    spec = tf.TensorSpec([2, 8, 12, 12, 3], tf.float32, name="clip")
    frozen = convert_variables_to_constants_v2(
        tf.function(lambda v: model(v, training=False)).get_concrete_function(spec)
    )
    graph_def = frozen.graph.as_graph_def()
    assert {"Conv3D", "MaxPool3D", "AvgPool3D"} <= {n.op for n in graph_def.node}
    path = tmp_path / "cnn3d.pb"
    path.write_bytes(graph_def.SerializeToString())
    clips = rng.random((2, 8, 12, 12, 3), dtype=np.float32)
    expected = np.asarray(model(clips, training=False))
    (got,), ir = run_converted(path, [clips], tmp_path)
    assert got.shape == expected.shape == (2, 5)
    assert {op.get_type_name() for op in ir.get_ops()} >= {"Convolution", "MaxPool", "AvgPool"}
    np.testing.assert_allclose(got, expected, atol=1e-4, rtol=1e-4)
