"""More Keras applications, frozen, against TensorFlow (slow: run on demand).

    python -m pytest tests/tf/test_keras_zoo.py -m slow -q

Inputs 96x96 (the smallest most applications accept) keep each model under a minute.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

# name -> transposes allowed in the IR (1: only the input boundary)
APPLICATIONS = {
    "DenseNet121": 1,
    "EfficientNetB0": 1,
    "EfficientNetV2B0": 1,
    "InceptionV3": 1,
    "MobileNet": 1,
    "MobileNetV3Small": 1,
    "NASNetMobile": 1,
    "ResNet50V2": 1,
    "Xception": 1,
    "ConvNeXtTiny": 40,  # channels-last Dense layers (MatMul) inside every block
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(APPLICATIONS))
def test_keras_application(name: str, run_converted: Any, tmp_path: Path) -> None:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    size = 96
    tf.keras.utils.set_random_seed(0)
    model = getattr(tf.keras.applications, name)(weights=None, classifier_activation=None, input_shape=(size, size, 3))
    spec = tf.TensorSpec([1, size, size, 3], tf.float32, name="input")
    frozen = convert_variables_to_constants_v2(
        tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    )
    path = tmp_path / f"{name}.pb"
    path.write_bytes(frozen.graph.as_graph_def().SerializeToString())
    x = np.random.default_rng(0).random((1, size, size, 3), dtype=np.float32) * 255
    want = np.asarray(model(x, training=False))
    (got,), ir = run_converted(path, [x], tmp_path)
    scale = max(float(np.abs(want).max()), 1.0)
    np.testing.assert_allclose(got, want, atol=1e-5 * scale, rtol=0)
    transposes = sum(op.get_type_name() == "Transpose" for op in ir.get_ordered_ops())
    assert transposes <= APPLICATIONS[name]
