"""Per-op conformance cases for the TensorList / TensorArrayV3 extractors (irconv_tf.extractors.tensor_list).

``test_tf_ops.cases()`` takes these in (``**tensor_list_cases(Case)``); each case is a
small tf.function whose frozen graph contains the op (the loops lower to TF1 frames).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(7).standard_normal(shape).astype(np.float32)


def tensor_list_cases(case_type: Any = None) -> dict[str, Any]:
    """{TF op: Case}; ``case_type`` is test_tf_ops.Case (imported when not given)."""
    import tensorflow as tf

    if case_type is None:
        from tests.tf.test_tf_ops import Case as case_type
    Case = case_type  # noqa: N806

    raw = tf.raw_ops
    f32 = tf.float32

    def scan(xs: Any) -> Any:  # Reserve, FromTensor, GetItem, SetItem, Stack in a loop
        return tf.scan(lambda a, x: a * 0.5 + x, xs)

    def gather(xs: Any) -> Any:
        lst = raw.TensorListFromTensor(tensor=xs, element_shape=[3])
        return raw.TensorListGather(input_handle=lst, indices=[2, 0], element_shape=[3], element_dtype=f32)

    def length_and_shape(xs: Any) -> Any:
        lst = raw.TensorListFromTensor(tensor=xs, element_shape=[3])
        length = raw.TensorListLength(input_handle=lst)
        shape = raw.TensorListElementShape(input_handle=lst, shape_type=tf.int32)
        return length, shape

    def push_pop(xs: Any) -> Any:
        lst = raw.EmptyTensorList(element_shape=[3], max_num_elements=-1, element_dtype=f32)
        for i in range(3):
            lst = raw.TensorListPushBack(input_handle=lst, tensor=xs[i] + float(i))
        lst, last = raw.TensorListPopBack(input_handle=lst, element_shape=[3], element_dtype=f32)
        return raw.TensorListStack(input_handle=lst, element_shape=[3], element_dtype=f32), last

    def array_v3(xs: Any) -> Any:  # TF1 TensorArray ops (write-once), the flow threaded through
        source, flow = raw.TensorArrayV3(size=tf.shape(xs)[0], dtype=f32, element_shape=[3])
        flow = raw.TensorArrayScatterV3(handle=source, indices=tf.range(tf.shape(xs)[0]), value=xs, flow_in=flow)
        first = raw.TensorArrayReadV3(handle=source, index=0, flow_in=flow, dtype=f32)
        second = raw.TensorArrayReadV3(handle=source, index=1, flow_in=flow, dtype=f32)
        target, out = raw.TensorArrayV3(size=2, dtype=f32, element_shape=[3])
        out = raw.TensorArrayWriteV3(handle=target, index=0, value=first * 2.0, flow_in=out)
        out = raw.TensorArrayWriteV3(handle=target, index=1, value=second + 1.0, flow_in=out)
        size = raw.TensorArraySizeV3(handle=target, flow_in=out)
        stacked = raw.TensorArrayGatherV3(handle=target, indices=tf.range(size), flow_in=out, dtype=f32)
        return stacked, size

    xs = _x(4, 3)
    return {
        "TensorListReserve": Case(scan, [xs]),
        "TensorListFromTensor": Case(scan, [xs]),
        "TensorListGetItem": Case(scan, [xs]),
        "TensorListSetItem": Case(scan, [xs]),
        "TensorListStack": Case(scan, [xs]),
        "TensorListGather": Case(gather, [xs]),
        "TensorListLength": Case(length_and_shape, [xs]),
        "TensorListElementShape": Case(length_and_shape, [xs]),
        "EmptyTensorList": Case(push_pop, [xs]),
        "TensorListPushBack": Case(push_pop, [xs]),
        "TensorListPopBack": Case(push_pop, [xs]),
        "TensorArrayV3": Case(array_v3, [xs]),
        "TensorArrayScatterV3": Case(array_v3, [xs]),
        "TensorArrayReadV3": Case(array_v3, [xs]),
        "TensorArrayWriteV3": Case(array_v3, [xs]),
        "TensorArraySizeV3": Case(array_v3, [xs]),
        "TensorArrayGatherV3": Case(array_v3, [xs]),
    }
