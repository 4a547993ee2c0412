"""Graphs irconv converted into IRs that computed something else, never finished, or that
OpenVINO refused. Each case is checked against TensorFlow itself."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

R = np.random.default_rng(23)


def f32(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (R.uniform(-1, 1, shape) * scale).astype(np.float32)


# ------------------------------------------------------------- wrong numbers
@pytest.mark.parametrize("max_output_size", [3, 6, 9])
def test_nms_v4_pads_to_max_output_size(max_output_size: int, tf_check: Any) -> None:
    """Fewer boxes survive than asked for: TF pads the indices with zeros to max_output_size."""
    import tensorflow as tf

    boxes = np.array(
        [[0, 0, 1, 1], [0, 0.05, 1, 1.05], [0, 2, 1, 3], [0, 2.02, 1, 3.02], [0, 5, 1, 6], [0, 5.01, 1, 6.01]],
        np.float32,
    )
    scores = np.array([0.9, 0.8, 0.7, 0.95, 0.3, 0.2], np.float32)
    frozen = tf_check(
        lambda b, s: tf.raw_ops.NonMaxSuppressionV4(
            boxes=b,
            scores=s,
            max_output_size=max_output_size,
            iou_threshold=0.5,
            score_threshold=np.float32(0.25),
            pad_to_max_output_size=True,
        ),
        [boxes, scores],
        op="NonMaxSuppressionV4",
    )
    assert frozen.expected[0].shape == (max_output_size,)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("op", ["IsInf", "IsNan", "IsFinite"])
def test_float_classes(op: str, dtype: Any, tf_check: Any) -> None:
    """Infinities, NaN and finite values (large ones included) of every float type. (The CPU
    plugin takes f64 data as f32, saturating: f32's largest value and an infinity arrive as
    the same number, so the largest f64 value tested is below it.)"""
    import tensorflow as tf

    largest = float(np.finfo(dtype).max) if dtype != np.float64 else 1e38
    values = np.array([np.inf, -np.inf, np.nan, 0.0, -1.5, 3.0e4, largest, -largest], dtype)
    tf_check(lambda x: getattr(tf.raw_ops, op)(x=x), [values], op=op)


# ------------------------------------------------------------ never finished
@pytest.mark.parametrize(("sizes", "op"), [((4, 6), "MatrixSetDiagV3"), ((5,), "MatrixDiagV3")], ids=["n_m", "n"])
def test_eye_of_computed_sizes(sizes: tuple[int, ...], op: str, tf_check: Any) -> None:
    """tf.eye with sizes known only at run time: TF concatenates an empty batch shape with
    [n, m], which made OpenVINO's shape inference hang or crash on the IR."""
    import tensorflow as tf

    tf_check(lambda *n: tf.eye(*n, dtype=tf.float32), [np.int32(s) for s in sizes], op=op)


# ---------------------------------------------------------- refused IRs
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("op", ["Any", "All"])
def test_logical_reduction_over_a_computed_axis(op: str, keep_dims: bool, tf_check: Any) -> None:
    import tensorflow as tf

    def reduce(x: Any, axis: Any) -> Any:
        return getattr(tf.raw_ops, op)(input=x > 0, axis=axis, keep_dims=keep_dims)

    tf_check(reduce, [f32(3, 4, 5), np.array([1], np.int32)], op=op)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv2d_backprop_input_static_data_computed_size(padding: str, tf_check: Any) -> None:
    """The result size comes from a dynamic input's shape while the data's shape is static
    (OpenVINO's CPU plugin refused the output_shape input then)."""
    import tensorflow as tf

    w = f32(3, 3, 2, 4)

    def deconv(x: Any, like: Any) -> Any:
        return tf.nn.conv2d_transpose(x, w, tf.shape(like), strides=[1, 2, 2, 1], padding=padding)

    size = (1, 9, 10, 2) if padding == "SAME" else (1, 11, 12, 2)
    tf_check(
        deconv, [f32(1, 5, 5, 4), f32(*size)], op="Conv2DBackpropInput", shapes=["fed", [1, None, None, 2]], atol=1e-4
    )
