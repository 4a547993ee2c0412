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


def _quantize_grid() -> np.ndarray:
    """Multiples of 1/16 in [-2, 1.875]: 5 signed bits give the scale 8 (15 / 1.875 = -16 / -2)
    and every odd multiple lands on a half (where the rounding modes differ)."""
    return _R.permutation(np.arange(-32, 31, dtype=np.float32))[:60].reshape(5, 12) / np.float32(16.0)


def _unsigned_grid() -> np.ndarray:
    """[4, 5, 3] multiples of 1/16 up to 1.875 in every channel: 4 unsigned bits give the scale 8."""
    x = (_R.integers(0, 31, (4, 5, 3)) / 16.0).astype(np.float32)
    x[0, 0, :] = 1.875
    return x


def _image() -> np.ndarray:
    """[2, 4, 5, 3] RGB in [0, 1] with grey, black and tied-channel pixels (the sextant edges)."""
    x = _f32(2, 4, 5, 3, low=0.0, high=1.0)
    x[0, 0, :5] = [[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [0.2, 0.2, 0.7], [0.7, 0.7, 0.2], [0.3, 0.8, 0.3]]
    x[0, 1, :4] = [[0.8, 0.3, 0.3], [0.3, 0.3, 0.8], [0.6, 0.1, 0.6], [1.0, 0.0, 0.0]]
    return x


def _in_range(tf: Any, r: Any, low: float | None, high: float | None) -> Any:
    """A random op's draw made deterministic but still computed from it: ones (of its type)
    where the draw lies in [low, high) (and is finite), the draw itself where it does not."""
    ok = tf.math.is_finite(tf.cast(r, tf.float32))
    if low is not None:
        ok = tf.logical_and(ok, r >= low)
    if high is not None:
        ok = tf.logical_and(ok, r < high)
    return tf.where(ok, tf.ones_like(r), r)


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

    logits = _R.uniform(-3.0, 3.0, (4, 5)).astype(np.float32)
    return {
        "SoftmaxCrossEntropyWithLogits": case_type(
            lambda x, y: raw.SoftmaxCrossEntropyWithLogits(features=x, labels=y),
            [logits, _R.dirichlet(np.ones(5), 4).astype(np.float32)],
        ),
        "SparseSoftmaxCrossEntropyWithLogits": case_type(
            lambda x: raw.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=np.array([0, 4, 2, 2], np.int32)),
            [logits],
        ),
        "MatrixInverse": case_type(
            lambda x: (raw.MatrixInverse(input=x), raw.MatrixInverse(input=x, adjoint=True)),
            [(_R.uniform(-1.0, 1.0, (2, 3, 3)) + 3.0 * np.eye(3)).astype(np.float32)],
            atol=1e-4,
        ),  # well conditioned
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
        # range from the data, per tensor, signed, rounding half to even
        "QuantizeAndDequantizeV2": case_type(
            lambda x: raw.QuantizeAndDequantizeV2(
                input=x, input_min=np.float32(0), input_max=np.float32(0), num_bits=5, range_given=False
            ),
            [np.concatenate([_quantize_grid(), np.array([[-2.0] * 6 + [1.875] * 6], np.float32)])],
        ),
        # given per-channel range (axis 1 of 3), narrow, num_bits an input
        "QuantizeAndDequantizeV3": case_type(
            lambda x: raw.QuantizeAndDequantizeV3(
                input=x,
                input_min=np.array([-1.0, -0.5, 0.0, -0.25], np.float32),
                input_max=np.array([0.75, 1.0, 0.5, 0.0], np.float32),
                num_bits=np.int32(4),
                range_given=True,
                narrow_range=True,
                axis=1,
            ),
            [_f32(3, 4, 5, low=-1.5, high=1.5)],
        ),
        # unsigned, range from the data per channel (last axis), rounding half up
        "QuantizeAndDequantizeV4": case_type(
            lambda x: raw.QuantizeAndDequantizeV4(
                input=x,
                input_min=np.zeros(3, np.float32),
                input_max=np.zeros(3, np.float32),
                signed_input=False,
                num_bits=4,
                range_given=False,
                round_mode="HALF_UP",
                axis=2,
            ),
            [_unsigned_grid()],
        ),
        "AdjustHue": case_type(lambda x: raw.AdjustHue(images=x, delta=np.float32(0.37)), [_image()]),
        "AdjustSaturation": case_type(lambda x: raw.AdjustSaturation(images=x, scale=np.float32(1.7)), [_image()]),
        "RandomUniform": case_type(
            lambda x: _in_range(tf, raw.RandomUniform(shape=tf.shape(x), dtype=tf.float32, seed=3), 0.0, 1.0),
            [_f32(3, 4)],
        ),
        "RandomUniformInt": case_type(
            lambda x: _in_range(
                tf, raw.RandomUniformInt(shape=tf.shape(x), minval=np.int32(-3), maxval=np.int32(9), seed=3), -3, 9
            ),
            [_f32(3, 4)],
        ),
        "RandomStandardNormal": case_type(
            lambda x: _in_range(tf, raw.RandomStandardNormal(shape=tf.shape(x), dtype=tf.float32), -50.0, 50.0),
            [_f32(3, 4)],
        ),
        "MaxPoolWithArgmax": case_type(
            lambda x: raw.MaxPoolWithArgmax(
                input=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME", include_batch_in_index=True
            ),
            [_f32(2, 7, 6, 3)],
        ),
    }
