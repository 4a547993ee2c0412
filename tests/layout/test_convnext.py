"""A Keras ConvNeXt keeps at most one transpose at each boundary, and matches TensorFlow.

ConvNeXt mixes NHWC convolutions with dense layers and layer norms over the channel axis:
transposes sink through the layer norm's reductions, through the dense layers (which become
1x1 convolutions) and the residual additions, and cancel between blocks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from irconv import convert_model, save_model  # noqa: E402
from irconv.testing.runtime import run_ir  # noqa: E402


@pytest.fixture(scope="module")
def convnext(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, np.ndarray]:
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    tf.keras.utils.set_random_seed(0)
    model = tf.keras.applications.ConvNeXtTiny(weights=None, input_shape=(32, 32, 3))
    spec = tf.TensorSpec([1, 32, 32, 3], tf.float32)
    frozen = convert_variables_to_constants_v2(tf.function(lambda x: model(x, training=False)).get_concrete_function(spec))
    path = tmp_path_factory.mktemp("convnext") / "convnext.pb"
    path.write_bytes(frozen.graph.as_graph_def().SerializeToString())
    x = np.random.default_rng(0).uniform(0, 255, (1, 32, 32, 3)).astype(np.float32)
    return path, x, frozen(tf.constant(x))[0].numpy()


@pytest.mark.parametrize("layout_inputs", [None, "nchw"])
def test_convnext_transposes_and_numbers(
    convnext: tuple[Path, np.ndarray, np.ndarray], tmp_path: Path, layout_inputs: str | None
) -> None:
    path, x, want = convnext
    graph = convert_model(path, layout_inputs=layout_inputs)
    transposes = len(graph.by_type("Transpose"))
    assert transposes <= (0 if layout_inputs else 1)
    xml = tmp_path / "convnext.xml"
    save_model(graph, xml, compress_to_fp16=False)
    feed = x.transpose(0, 3, 1, 2) if layout_inputs else x
    got = next(iter(run_ir(xml, [feed]).values()))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
