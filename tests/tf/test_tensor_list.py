"""TensorList ops (TensorArray, tf.scan, tf.map_fn) in frozen graphs, against TensorFlow.

Frozen with convert_variables_to_constants_v2, the While loops are lowered to TF1 frames
and the TensorLists are loop variables; irconv carries each as a tensor with a leading
list axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _x(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_scan(tf_check: Any) -> None:
    import tensorflow as tf

    tf_check(lambda xs: tf.scan(lambda a, x: a * 0.5 + tf.tanh(x), xs), [_x(6, 3)], op="TensorListSetItem", atol=1e-4)


def test_scan_with_initializer_and_two_states(tf_check: Any) -> None:
    import tensorflow as tf

    def fn(xs: Any) -> Any:
        a, b = tf.scan(lambda s, x: (s[0] + x, s[1] * x), xs, initializer=(tf.zeros([4]), tf.ones([4])))
        return a, b

    tf_check(fn, [_x(5, 4)], op="TensorListGetItem", atol=1e-4)


def test_map_fn(tf_check: Any) -> None:
    import tensorflow as tf

    tf_check(lambda xs: tf.map_fn(lambda r: tf.reduce_sum(r * r), xs), [_x(7, 5)], op="TensorListStack", atol=1e-4)


def _runtime_length_case(element_shape: Any, tmp_path: Any) -> None:
    import tensorflow as tf

    from tests.tf.conftest import convert_and_run

    def fn(xs: Any) -> Any:
        n = tf.shape(xs)[0]
        ta = tf.TensorArray(tf.float32, size=n).unstack(xs)
        out = tf.TensorArray(tf.float32, size=n, element_shape=element_shape)

        def body(i: Any, out: Any) -> Any:
            return i + 1, out.write(i, tf.nn.relu(ta.read(i)) + tf.cast(i, tf.float32))

        _, out = tf.while_loop(lambda i, _: i < n, body, [0, out])
        return out.stack()

    concrete = tf.function(fn).get_concrete_function(tf.TensorSpec([None, 3], tf.float32, name="in0"))
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    graph_def = convert_variables_to_constants_v2(concrete).graph.as_graph_def()
    path = tmp_path / "model.pb"
    path.write_bytes(graph_def.SerializeToString())
    for length in (1, 4):
        xs = _x(length, 3, seed=length)
        (got,) = convert_and_run(path, {"in0": xs}, tmp_path)
        np.testing.assert_allclose(got, np.asarray(fn(tf.constant(xs))), atol=1e-5)


def test_tensor_array_over_runtime_length(tmp_path: Any) -> None:
    """The element count is the input's (dynamic) first dimension."""
    _runtime_length_case([3], tmp_path)


def test_tensor_array_over_runtime_length_partial_element_shape(tmp_path: Any) -> None:
    """Element shape [None]: the reserved list's unknown dimension comes from the first write."""
    _runtime_length_case([None], tmp_path)


def test_tensor_array_of_unknown_element_rank_in_a_loop(tmp_path: Any) -> None:
    """Reserved with an element shape of unknown rank: the rank the stack after the loop
    states is given to the reserved list, so the Loop keeps a static rank."""
    _runtime_length_case(None, tmp_path)


def test_push_back_pop_back_length(tf_check: Any) -> None:
    import tensorflow as tf

    def fn(x: Any) -> Any:
        lst = tf.raw_ops.EmptyTensorList(element_shape=[3], max_num_elements=-1, element_dtype=tf.float32)
        for i in range(4):
            lst = tf.raw_ops.TensorListPushBack(input_handle=lst, tensor=x[i] * float(i + 1))
        lst, last = tf.raw_ops.TensorListPopBack(input_handle=lst, element_shape=[3], element_dtype=tf.float32)
        length = tf.raw_ops.TensorListLength(input_handle=lst)
        stacked = tf.raw_ops.TensorListStack(input_handle=lst, element_shape=[3], element_dtype=tf.float32)
        return stacked, last, length

    tf_check(fn, [_x(4, 3)], op="TensorListPushBack")


def test_reserve_with_computed_element_shape(tmp_path: Any) -> None:
    """TensorListReserve whose element shape and count are computed from a dynamic input."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    from tests.tf.conftest import convert_and_run

    def fn(x: Any) -> Any:
        dims = tf.shape(x)
        lst = tf.raw_ops.TensorListReserve(element_shape=dims[1:], num_elements=dims[0], element_dtype=tf.float32)
        for i in range(3):
            lst = tf.raw_ops.TensorListSetItem(input_handle=lst, index=2 - i, item=x[i] * float(i + 1))
        return tf.raw_ops.TensorListStack(input_handle=lst, element_shape=dims[1:], element_dtype=tf.float32)

    concrete = tf.function(fn).get_concrete_function(tf.TensorSpec([3, None], tf.float32, name="in0"))
    path = tmp_path / "model.pb"
    path.write_bytes(convert_variables_to_constants_v2(concrete).graph.as_graph_def().SerializeToString())
    xs = _x(3, 5)
    (got,) = convert_and_run(path, {"in0": xs}, tmp_path)
    np.testing.assert_allclose(got, np.asarray(fn(tf.constant(xs))), atol=1e-6)


def test_dynamic_size_tensor_array_grows_on_write(tmp_path: Any) -> None:
    """TensorArray(size=0, dynamic_size=True): each write past the end grows the list."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    from tests.tf.conftest import convert_and_run

    def fn(xs: Any) -> Any:
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def body(i: Any, ta: Any) -> Any:
            return i + 1, ta.write(i, xs[i] * 2.0 + 1.0)

        _, ta = tf.while_loop(lambda i, _: i < tf.shape(xs)[0], body, [0, ta])
        return ta.stack()

    concrete = tf.function(fn).get_concrete_function(tf.TensorSpec([None, 3], tf.float32, name="in0"))
    path = tmp_path / "model.pb"
    path.write_bytes(convert_variables_to_constants_v2(concrete).graph.as_graph_def().SerializeToString())
    for length in (1, 6):
        xs = _x(length, 3, seed=length)
        (got,) = convert_and_run(path, {"in0": xs}, tmp_path)
        np.testing.assert_allclose(got, np.asarray(fn(tf.constant(xs))), atol=1e-6)
