"""Per-op cases for the TF extractor in ``irconv_tf.extractors.combined_nms``:
CombinedNonMaxSuppression with shared and per-class boxes, padding rules and clipping."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(41)


def _boxes(images: int, count: int, per_box: int, spread: float = 1.0) -> np.ndarray:
    corners = _R.uniform(-0.1 * spread, 0.8 * spread, (images, count, per_box, 2))
    sizes = _R.uniform(0.1, 0.4, (images, count, per_box, 2))
    return np.concatenate([corners, corners + sizes], axis=-1).astype(np.float32)


def _scores(images: int, count: int, classes: int) -> np.ndarray:
    """Distinct scores (one valid order), a third of them under the 0.2 threshold."""
    return (
        _R.permutation(images * count * classes).reshape(images, count, classes) / (images * count * classes)
    ).astype(np.float32)


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    def combined(boxes: Any, scores: Any, per_class: int, total: int, **flags: Any) -> Any:
        return tf.raw_ops.CombinedNonMaxSuppression(
            boxes=boxes,
            scores=scores,
            max_output_size_per_class=np.int32(per_class),
            max_total_size=np.int32(total),
            iou_threshold=np.float32(0.4),
            score_threshold=np.float32(0.2),
            **flags,
        )

    return {
        "CombinedNonMaxSuppression": case_type(
            lambda b, s, pb, ps: (
                *combined(b, s, 4, 7),  # shared boxes, boxes outside [0, 1] clipped
                *combined(pb, ps, 3, 20, pad_per_class=True, clip_boxes=False),  # per-class boxes, 3 * 3 slots
                *combined(b, s, 2, 50),  # more than 12 * 3 slots: zeros after them
            ),
            [_boxes(2, 12, 1), _scores(2, 12, 3), _boxes(2, 10, 3), _scores(2, 10, 3)],
        ),
    }
