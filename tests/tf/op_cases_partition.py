"""Per-op cases for the TF extractors in ``irconv_tf.extractors.partition``: DynamicPartition, SparseReshape."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(32)


def _f32(*shape: int) -> np.ndarray:
    return _R.uniform(-1.0, 1.0, shape).astype(np.float32)


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops
    return {
        "DynamicPartition": case_type(
            lambda x, p, m, q: (
                *raw.DynamicPartition(data=x, partitions=p, num_partitions=4),  # partition 3 is empty
                *raw.DynamicPartition(data=m, partitions=q, num_partitions=2),  # 2-D partitions of 3-D data
            ),
            [
                _f32(6, 3),
                np.array([0, 2, 1, 0, 2, 2], np.int32),
                _f32(2, 3, 4),
                np.array([[1, 0, 1], [1, 1, 0]], np.int32),
            ],
        ),
        "SparseReshape": case_type(
            lambda i, s, n: raw.SparseReshape(input_indices=i, input_shape=s, new_shape=n),
            [
                np.array([[0, 0, 1], [0, 2, 3], [1, 1, 0], [1, 2, 3]], np.int64),
                np.array([2, 3, 4], np.int64),
                np.array([4, -1], np.int64),
            ],
        ),
    }
