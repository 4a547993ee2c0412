"""irconv_opset.lowering.nms against a greedy NMS written here in NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.frontend import f32, i64
from irconv_opset.lowering.nms import iou_strictly_above, single_class_nms
from irconv_opset.testing_lowering import run_lowering


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    (ay1, ax1, ay2, ax2), (by1, bx1, by2, bx2) = a, b
    inter = max(0.0, min(ay2, by2) - max(ay1, by1)) * max(0.0, min(ax2, bx2) - max(ax1, bx1))
    union = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter
    return inter / union if union > 0 else 0.0


def _greedy(boxes: np.ndarray, scores: np.ndarray, limit: int, iou: float, threshold: float) -> list[int]:
    kept: list[int] = []
    for i in np.argsort(-scores, kind="stable"):
        if len(kept) == limit or scores[i] <= threshold:
            break
        if all(_iou(boxes[i], boxes[k]) <= iou for k in kept):
            kept.append(int(i))
    return kept


def _boxes(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    corner = rng.uniform(0, 8, (n, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(1, 4, (n, 2))], axis=1).astype(np.float32)
    return boxes, rng.permutation(n).astype(np.float32) / n


@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("limit", [0, 3, 40])
def test_single_class_nms(limit: int, pad: bool, tmp_path: Path) -> None:
    boxes, scores = _boxes(20)

    def lowering(ctx, p):  # type: ignore[no-untyped-def]
        picked = single_class_nms(ctx, p[0], p[1], i64(ctx, limit, "limit"), f32(ctx, 0.4, "iou"),
                                  f32(ctx, 0.2, "threshold"), pad=pad)
        return [picked.indices, picked.scores, picked.valid]

    indices, picked_scores, valid = run_lowering(lowering, [boxes, scores], tmp_path)
    want = _greedy(boxes, scores, limit, 0.4, 0.2)
    assert int(valid) == len(want)
    assert list(indices[: len(want)]) == want
    np.testing.assert_allclose(picked_scores[: len(want)], scores[want])
    assert len(indices) == (max(limit, len(want)) if pad else len(want))
    assert not indices[len(want):].any() and not picked_scores[len(want):].any()


def test_iou_strictly_above_keeps_a_box_at_exactly_the_threshold(tmp_path: Path) -> None:
    """Two boxes whose IoU is exactly 0.5: a framework suppressing at IoU > 0.5 keeps both."""
    boxes = np.array([[0, 0, 1, 2], [0, 0, 1, 1]], np.float32)
    scores = np.array([0.9, 0.8], np.float32)

    def lowering(ctx, p):  # type: ignore[no-untyped-def]
        iou = iou_strictly_above(ctx, f32(ctx, 0.5, "iou"))
        return [single_class_nms(ctx, p[0], p[1], i64(ctx, 2, "limit"), iou).valid]

    (valid,) = run_lowering(lowering, [boxes, scores], tmp_path)
    assert int(valid) == 2
