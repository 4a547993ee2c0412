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


@pytest.mark.parametrize(
    "index",
    [
        lambda x, i: x[i],  # shrink axis 0 by a run-time index
        lambda x, i: x[i, 1:],
        lambda x, i: x[1:, i],
        lambda x, i: x[..., i],  # the shrunk axis found behind an ellipsis
        lambda x, i: x[i, ..., 1],
        lambda x, i: x[i, None, ::-1],  # a new axis beside it
    ],
    ids=["first", "first_then_range", "second", "ellipsis_last", "first_ellipsis_last", "new_axis_reversed"],
)
def test_strided_slice_shrinking_by_run_time_bounds(index: Any, tf_check: Any) -> None:
    """x[i] with i known only at run time, on data of static shape (the CPU plugin compiles no
    StridedSlice that shrinks axes by run-time bounds when shapes are static)."""
    tf_check(index, [f32(4, 3, 5), np.int32(2)], op="StridedSlice")


def test_strided_slice_by_run_time_begin_end_strides(tf_check: Any) -> None:
    import tensorflow as tf

    def slice_(x: Any, b: Any, e: Any, s: Any) -> Any:
        return tf.strided_slice(x, b, e, s, begin_mask=2, shrink_axis_mask=1)

    tf_check(
        slice_,
        [f32(6, 5, 4), np.array([4, 3, 0], np.int32), np.array([5, 0, 4], np.int32), np.array([1, -1, 2], np.int32)],
        op="StridedSlice",
    )


@pytest.mark.parametrize("axes", [np.zeros(0, np.int32), np.zeros(0, np.int64)], ids=["i32", "i64"])
def test_reverse_over_no_axes_is_the_input(axes: np.ndarray, tf_check: Any) -> None:
    """An empty constant axis list (OpenVINO's reader refused the Reverse with "ptr is Null")."""
    import tensorflow as tf

    tf_check(lambda x: tf.raw_ops.ReverseV2(tensor=x, axis=tf.constant(axes)) * 2.0, [f32(2, 3, 4)], op="ReverseV2")


@pytest.mark.parametrize("op", ["IsInf", "IsFinite"])
def test_float_classes_of_half_values_that_overflowed(op: str, tf_check: Any) -> None:
    """x**5 overflows in TensorFlow's f16 arithmetic; the CPU plugin computes f16 graphs in f32,
    where the same values stay finite."""
    import tensorflow as tf

    values = np.array([1.0, 5.0, 11.0, 12.0, -12.0, 0.0, np.inf, np.nan], np.float16)
    tf_check(lambda x: getattr(tf.raw_ops, op)(x=x * x * x * x * x), [values], op=op)


def test_squeeze_of_run_time_dims_without_axes_is_one_clear_error(tmp_path: Any) -> None:
    """tf.squeeze(x) with dims known only at run time: the result's rank is run-time too,
    which the CPU plugin refuses; the conversion says so instead of writing the IR."""
    import tensorflow as tf
    from irconv.api import convert_model
    from irconv.errors import ConversionError

    from tests.tf.conftest import freeze

    frozen = freeze(lambda x: tf.squeeze(x) * 2.0, [f32(3, 1, 4)], tmp_path / "model.pb", [[None, 1, None]])
    with pytest.raises(ConversionError, match=r"Squeeze without squeeze_dims .*\[\?,1,\?\].*--input"):
        convert_model(frozen.path)


def test_squeeze_without_axes_converts_once_the_shapes_are_given(tmp_path: Any, run_converted: Any) -> None:
    import tensorflow as tf

    from tests.tf.conftest import assert_same_as_tensorflow, freeze

    frozen = freeze(lambda x: tf.squeeze(x) * 2.0, [f32(3, 1, 4)], tmp_path / "model.pb", [[None, 1, None]])
    got, _ = run_converted(frozen.path, frozen.inputs, tmp_path, inputs=["in0[3,1,4]"])
    assert_same_as_tensorflow(got, frozen.expected, 0, 0)


@pytest.mark.parametrize("fed", [False, True, None], ids=["fed_false", "fed_true", "frozen_default"])
@pytest.mark.parametrize("control_flow", ["v1", "v2"])
def test_learning_phase_cond_takes_the_branch_tensorflow_takes(
    control_flow: str, fed: bool | None, tmp_path: Any, run_converted: Any
) -> None:
    """A TF1 Keras graph: ``cond(keras_learning_phase, train, inference)`` with the learning phase
    a PlaceholderWithDefault(False). Fed, or frozen into its default, the IR takes TF's branch."""
    import tensorflow as tf

    from tests.tf.conftest import assert_same_as_tensorflow

    x = f32(2, 3)
    graph = tf.Graph()
    with graph.as_default():
        (tf.compat.v1.enable_control_flow_v2 if control_flow == "v2" else tf.compat.v1.disable_control_flow_v2)()
        try:
            data = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
            phase = tf.compat.v1.placeholder_with_default(False, shape=[], name="keras_learning_phase")
            out = tf.identity(tf.compat.v1.cond(phase, lambda: data * 2.0 + 1.0, lambda: data - 3.0), name="out")
        finally:
            tf.compat.v1.enable_control_flow_v2()
        with tf.compat.v1.Session(graph=graph) as session:
            expected = session.run(out, {data: x} if fed is None else {data: x, phase: fed})
            frozen = tf.compat.v1.graph_util.convert_variables_to_constants(session, graph.as_graph_def(), ["out"])
    path = tmp_path / "model.pb"
    path.write_bytes(frozen.SerializeToString())
    if fed is None:
        got, _ = run_converted(path, {"x": x}, tmp_path, freeze_placeholder_with_default=True)
    else:
        got, _ = run_converted(path, {"x": x, "keras_learning_phase": np.array(fed)}, tmp_path)
    assert_same_as_tensorflow(got, [expected], 1e-6, 1e-6)
