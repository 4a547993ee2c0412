"""Parameters TensorFlow lets a graph compute, where the opset op takes a tensor too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest


@pytest.mark.parametrize(("padding", "size"), [("SAME", 8), ("SAME", 7), ("VALID", 9), ("VALID", 10)])
def test_conv2d_backprop_input_sizes_built_from_the_batch(
    padding: str, size: int, run_converted: Any, tmp_path: Path
) -> None:
    """A decoder's usual form: input_sizes = [batch of x, H, W, C], computed from tf.shape(x)."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    rng = np.random.default_rng(3)
    filters = rng.standard_normal((3, 3, 2, 4)).astype(np.float32)

    def decoder(x: Any) -> Any:
        sizes = tf.stack([tf.shape(x)[0], size, size, 2])
        return tf.raw_ops.Conv2DBackpropInput(
            input_sizes=sizes, filter=filters, out_backprop=x, strides=[1, 2, 2, 1], padding=padding
        )

    spec = tf.TensorSpec([None, 4, 4, 4], tf.float32, name="x")
    frozen = convert_variables_to_constants_v2(tf.function(decoder).get_concrete_function(spec))
    graph = frozen.graph.as_graph_def()
    assert "Conv2DBackpropInput" in {n.op for n in graph.node}
    model = tmp_path / "decoder.pb"
    model.write_bytes(graph.SerializeToString())
    x = rng.standard_normal((2, 4, 4, 4)).astype(np.float32)
    (got,), _ = run_converted(model, {"x": x}, tmp_path / "out")
    result = frozen(tf.constant(x))
    want = np.asarray(result[0] if isinstance(result, (list, tuple)) else result)
    assert got.shape == want.shape == (2, size, size, 2)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_conv2d_backprop_input_with_a_computed_filter(run_converted: Any, tmp_path: Path) -> None:
    """The filter is an input of the graph (scaled by a second input): the kernel size is known
    from its shape, the values come at run time."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    def decoder(x: Any, f: Any, gain: Any) -> Any:
        return tf.raw_ops.Conv2DBackpropInput(
            input_sizes=np.array([1, 8, 8, 2], np.int32),
            filter=f * gain,
            out_backprop=x,
            strides=[1, 2, 2, 1],
            padding="SAME",
        )

    specs = [
        tf.TensorSpec([1, 4, 4, 4], tf.float32, name="x"),
        tf.TensorSpec([3, 3, 2, 4], tf.float32, name="f"),
        tf.TensorSpec([], tf.float32, name="gain"),
    ]
    frozen = convert_variables_to_constants_v2(tf.function(decoder).get_concrete_function(*specs))
    model = tmp_path / "decoder.pb"
    model.write_bytes(frozen.graph.as_graph_def().SerializeToString())
    rng = np.random.default_rng(5)
    feed = {
        "x": rng.standard_normal((1, 4, 4, 4)).astype(np.float32),
        "f": rng.standard_normal((3, 3, 2, 4)).astype(np.float32),
        "gain": np.float32(1.5),
    }
    (got,), _ = run_converted(model, feed, tmp_path / "out")
    result = frozen(*[tf.constant(v) for v in feed.values()])
    want = np.asarray(result[0] if isinstance(result, (list, tuple)) else result)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
