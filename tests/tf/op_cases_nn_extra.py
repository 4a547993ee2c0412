"""Per-op cases for the TF extractors in ``irconv_tf.extractors.nn_extra``: further neural-network ops."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(13)


def _f32(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return _R.uniform(low, high, shape).astype(np.float32)


def _nms_inputs() -> list[np.ndarray]:
    corners = _R.uniform(0, 1, (12, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + _R.uniform(0.1, 0.4, (12, 2)).astype(np.float32)], axis=1)
    return [boxes, _R.permutation(12).astype(np.float32) / 12.0]  # distinct scores: one order


def _ctc_logits() -> np.ndarray:
    """[time 7, batch 3, classes 5] whose top classes repeat and hit the blank (class 4)."""
    top = np.array([[1, 1, 4, 1, 2, 2, 0], [3, 4, 3, 3, 4, 4, 0], [0, 2, 2, 2, 1, 4, 1]]).T
    return (_f32(7, 3, 5) + 3.0 * np.eye(5, dtype=np.float32)[top]).astype(np.float32)


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops

    def tensor_array_close(xs: Any) -> Any:
        handle, flow = raw.TensorArrayV3(size=3, dtype=tf.float32, element_shape=[4])
        flow = raw.TensorArrayScatterV3(handle=handle, indices=np.arange(3, dtype=np.int32), value=xs, flow_in=flow)
        out = raw.TensorArrayGatherV3(handle=handle, indices=np.array([2, 0], np.int32), flow_in=flow, dtype=tf.float32)
        with tf.control_dependencies([out]):
            raw.TensorArrayCloseV3(handle=handle)
        return out * 2.0

    return {
        "LRN": case_type(
            lambda x: raw.LRN(input=x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75), [_f32(2, 4, 5, 7)], atol=1e-5
        ),
        "ExtractImagePatches": case_type(
            lambda x: raw.ExtractImagePatches(
                images=x, ksizes=[1, 3, 2, 1], strides=[1, 2, 1, 1], rates=[1, 1, 2, 1], padding="SAME"
            ),
            [_f32(2, 7, 6, 3)],
        ),
        "FakeQuantWithMinMaxVarsPerChannel": case_type(
            lambda x: raw.FakeQuantWithMinMaxVarsPerChannel(
                inputs=x,
                min=np.array([-0.7, -1.0, 0.1, -0.35, -2.0], np.float32),
                max=np.array([0.9, 0.2, 1.0, 0.6, -0.5], np.float32),
                num_bits=5,
                narrow_range=True,
            ),
            [_f32(3, 8, 5, low=-1.5, high=1.5)],
        ),
        "Conv3DBackpropInputV2": case_type(
            lambda x: raw.Conv3DBackpropInputV2(
                input_sizes=np.array([2, 5, 7, 8, 3], np.int32),
                filter=_f32(2, 3, 3, 3, 4),
                out_backprop=x,
                strides=[1, 2, 2, 3, 1],
                padding="SAME",
            ),
            [_f32(2, 3, 4, 3, 4)],
            atol=1e-4,
        ),
        "TensorArrayCloseV3": case_type(tensor_array_close, [_f32(3, 4)]),
        "NonMaxSuppression": case_type(
            lambda b, s: raw.NonMaxSuppression(boxes=b, scores=s, max_output_size=np.int32(6), iou_threshold=0.3),
            _nms_inputs(),
        ),
        "CTCGreedyDecoder": case_type(
            lambda x, n: raw.CTCGreedyDecoder(inputs=x, sequence_length=n, merge_repeated=True),
            [_ctc_logits(), np.array([7, 6, 0], np.int32)],
        ),
    }
