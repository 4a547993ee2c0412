"""More Keras applications (random weights, no download) at the smallest input each accepts,
converted by TensorFlow's TFLite converter as float; irconv's IR run by OpenVINO against
the LiteRT interpreter, logits compared. Making each takes minutes on a loaded machine, so
all are marked slow; ``tests/sweeps/tflite_frontends.py`` (without ``--quick``) runs them too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tflite_support import ModelCache, assert_close, compare


def _application(name: str, size: int) -> Callable[[], Any]:
    def build() -> Any:
        import tensorflow as tf

        return getattr(tf.keras.applications, name)(input_shape=(size, size, 3), weights=None, classes=10,
                                                     classifier_activation=None)

    return build


def _image(size: int, scale: float, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, scale, (1, size, size, 3)).astype(np.float32)


#: name -> (builder, input image) of Keras applications at the smallest input each accepts
#: (dense blocks, NASNet cells, Inception branches, separable convolutions, Fused-MBConv,
#: ConvNeXt's layer norm and GELU, hard-swish, pre-activation ResNet); logits compared.
#: Images in the range each network's preprocessing expects. Slow to make (minutes each).
NETWORKS: dict[str, tuple[Callable[[], Any], np.ndarray]] = {
    "densenet121": (_application("DenseNet121", 32), _image(32, 1.0, 3)),
    "mobilenet_v3_large": (_application("MobileNetV3Large", 32), _image(32, 255.0, 3)),
    "efficientnet_v2_b0": (_application("EfficientNetV2B0", 32), _image(32, 255.0, 3)),
    "resnet50_v2": (_application("ResNet50V2", 32), _image(32, 1.0, 3)),
    "nasnet_mobile": (_application("NASNetMobile", 32), _image(32, 1.0, 3)),
    "xception": (_application("Xception", 71), _image(71, 1.0, 3)),
    "inception_v3": (_application("InceptionV3", 75), _image(75, 1.0, 3)),
    "convnext_tiny": (_application("ConvNeXtTiny", 32), _image(32, 255.0, 3)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_network_float(name: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    build, image = NETWORKS[name]
    made = tflite_models.from_keras(f"{name}_float", build, [image], "float")
    compared = compare(made.path, made.inputs, tmp_path)
    scale = max(float(np.abs(e).max()) for e in compared.expected)
    assert_close(compared, atol=1e-5 * scale, rtol=1e-4)
