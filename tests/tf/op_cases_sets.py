"""Per-op cases for the TF extractor in ``irconv_tf.extractors.sets``: DenseToDenseSetOperation
(every operation; repeated members, rows with nothing left)."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    def sparse_parts(a: Any, b: Any, operation: str) -> tuple[Any, ...]:
        result = tf.raw_ops.DenseToDenseSetOperation(set1=a, set2=b, set_operation=operation)
        return tuple(result)

    left = np.array([[5, 1, 3, 1, 9], [2, 2, 2, 2, 2], [7, 0, -4, 8, 0]], np.int32)
    right = np.array([[3, 4, 5, 4], [6, 2, 6, 6], [1, 1, 1, 1]], np.int32)
    return {
        "DenseToDenseSetOperation": case_type(
            lambda a, b: tuple(
                part for op in ("a-b", "b-a", "intersection", "union") for part in sparse_parts(a, b, op)
            ),
            [left, right],
        ),
    }
