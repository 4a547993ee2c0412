"""Per-op cases for the TF extractors in ``irconv_tf.extractors.resampling``: ResizeArea, ResizeBicubic
(shrinking and growing, each coordinate rule, integer images)."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(11)


def _image(*shape: int) -> np.ndarray:
    return _R.uniform(-1.0, 1.0, shape).astype(np.float32)


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops

    def size(h: int, w: int) -> np.ndarray:
        return np.array([h, w], np.int32)

    return {
        "ResizeArea": case_type(
            lambda x, u: (
                raw.ResizeArea(images=x, size=size(3, 5)),  # shrink by non-integer factors
                raw.ResizeArea(images=x, size=size(11, 9)),  # grow
                raw.ResizeArea(images=x, size=size(4, 3), align_corners=True),
                raw.ResizeArea(images=u, size=size(3, 2)),  # uint8 in, float32 out
            ),
            [_image(2, 7, 8, 3), _R.integers(0, 255, (1, 5, 4, 2)).astype(np.uint8)],
            atol=1e-4,
        ),
        "ResizeBicubic": case_type(
            lambda x: (
                raw.ResizeBicubic(images=x, size=size(13, 5)),  # legacy: a = -0.75, edges clamped
                raw.ResizeBicubic(images=x, size=size(13, 5), half_pixel_centers=True),  # Keys, renormalised
                raw.ResizeBicubic(images=x, size=size(4, 11), align_corners=True),
                raw.ResizeBicubic(images=x, size=size(3, 3), half_pixel_centers=True),
            ),
            [_image(2, 7, 8, 3)],
            atol=1e-4,
        ),
    }
