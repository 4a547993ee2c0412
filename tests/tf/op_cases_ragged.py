"""Per-op cases for the TF extractors in ``irconv_tf.extractors.ragged``: RaggedRange,
RaggedTensorToTensor, RaggedTensorToSparse, RaggedGather (one ragged dimension; empty rows,
requested shapes that pad and crop)."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(17)


def _f32(*shape: int) -> np.ndarray:
    return _R.uniform(-1.0, 1.0, shape).astype(np.float32)


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops
    splits = np.array([0, 2, 2, 5, 6], np.int64)  # rows of 2, 0, 3 and 1 values

    def ragged(values: Any, row_splits: Any) -> Any:
        return tf.RaggedTensor.from_row_splits(values, row_splits, validate=False)

    return {
        "RaggedRange": case_type(
            lambda s, e, d, f: (
                *raw.RaggedRange(starts=s, limits=e, deltas=d),  # a backwards row, an empty one
                *raw.RaggedRange(starts=f, limits=np.float32(3.0), deltas=np.float32(0.75), Tsplits=tf.int32),
            ),
            [
                np.array([0, 5, 3, -2], np.int32),
                np.array([4, 1, 3, 7], np.int32),
                np.array([1, -2, 1, 3], np.int32),
                np.array([0.5, -1.0, 2.9], np.float32),
            ],
        ),
        "RaggedTensorToTensor": case_type(
            lambda d, v, s, m, r: (  # the default first: a zero-size variant would empty values, not splits
                ragged(v, s).to_tensor(),
                ragged(v, s).to_tensor(default_value=d, shape=[3, 2]),  # crops rows and columns
                ragged(v, s).to_tensor(shape=[6, 4]),  # pads both
                ragged(m, s).to_tensor(default_value=7.0),  # [3]-vectors as values
                tf.RaggedTensor.from_value_rowids(v, r, nrows=5, validate=False).to_tensor(),
            ),
            [np.float32(-1.0), _f32(6), splits, _f32(6, 3), np.array([0, 0, 2, 2, 2, 3], np.int64)],
        ),
        "RaggedTensorToSparse": case_type(
            lambda v, s: (lambda t: (t.indices, t.values, t.dense_shape))(ragged(v, s).to_sparse()),
            [_f32(6), splits],
        ),
        "RaggedGather": case_type(
            lambda v, s, i: (lambda g: (g.values, g.row_splits))(tf.gather(ragged(v, s), i)),
            [_f32(6), splits, np.array([2, 0, 1, 2, 3], np.int32)],
        ),
    }
