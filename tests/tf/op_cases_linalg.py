"""Per-op cases for the TF extractors in ``irconv_tf.extractors.linalg``: MatrixDeterminant,
LogMatrixDeterminant (batches, row swaps, negative and singular matrices)."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(5)


def _matrices(*shape: int) -> np.ndarray:
    return _R.uniform(-1.0, 1.0, shape).astype(np.float32)


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 2.0]], np.float32)  # rank 2
    swap_needed = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0], [1.0, 1.0, 0.0]], np.float32)  # a zero first pivot
    return {
        "MatrixDeterminant": case_type(
            lambda x, s, w, one: (
                raw.MatrixDeterminant(input=x),
                raw.MatrixDeterminant(input=s),
                raw.MatrixDeterminant(input=w),
                raw.MatrixDeterminant(input=one),
            ),
            [_matrices(2, 3, 5, 5), singular, swap_needed, _matrices(4, 1, 1)],
            atol=1e-5,
        ),
        "LogMatrixDeterminant": case_type(
            lambda x, w: (*raw.LogMatrixDeterminant(input=x), *raw.LogMatrixDeterminant(input=w)),
            [_matrices(3, 4, 4), swap_needed],
            atol=1e-5,
        ),
    }
