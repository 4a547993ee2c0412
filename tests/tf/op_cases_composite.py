"""Per-op cases for the TF extractors in ``irconv_tf.extractors.composite``: element-wise compositions and small shape ops."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(23)


def _f32(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return _R.uniform(low, high, shape).astype(np.float32)


def _with_zeros(*shape: int) -> np.ndarray:
    """Random values with about a third of them exactly 0."""
    return (_f32(*shape) * (_R.random(shape) > 0.3)).astype(np.float32)


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops

    def band(diagonals: Any, count: int) -> Any:
        """A band's diagonals with their count static: TF's shape function rejects an unknown
        count for k = [lo, hi] (so the /dynamic variants trace)."""
        return tf.ensure_shape(diagonals, [None, count, None])

    # x == 0 meets y == 0, y < 0, y == inf and NaN in the first row: TF gives 0 there
    special_x = np.array([[0.0, 0.0, 0.0, 0.0, 2.0, -1.5]], np.float32)
    special_y = np.array([[0.0, -1.0, np.inf, np.nan, 0.5, 3.0]], np.float32)
    ints = _R.integers(-1000, 1000, (3, 4)).astype(np.int32)
    shifts = _R.integers(0, 20, (3, 4)).astype(np.int32)
    return {
        "Atan2": case_type(
            lambda y, x: raw.Atan2(y=y, x=x),
            [_f32(3, 5), np.concatenate([_f32(3, 4), np.zeros((3, 1), np.float32)], 1)],
        ),  # every quadrant and the x == 0 axis
        "LeftShift": case_type(lambda x, y: raw.LeftShift(x=x, y=y), [ints, shifts]),
        "RightShift": case_type(lambda x, y: raw.RightShift(x=x, y=y), [ints, shifts]),  # arithmetic for signed
        "Xlogy": case_type(
            lambda x, y, sx, sy: (
                tf.concat([raw.Xlogy(x=x, y=y), raw.Xlogy(x=sx, y=sy)], axis=0),
                raw.Xlogy(x=tf.cast(x, tf.float64), y=tf.cast(y[0], tf.float64)),  # broadcast, double
            ),
            [_with_zeros(3, 6), _f32(3, 6, low=0.1, high=3.0), special_x, special_y],
        ),
        "Xlog1py": case_type(
            lambda x, y, sx, sy: tf.concat([raw.Xlog1py(x=x, y=y), raw.Xlog1py(x=sx, y=sy - 1.0)], axis=0),
            [_with_zeros(3, 6), _f32(3, 6, low=-0.5, high=3.0), special_x, special_y],
        ),
        "Xdivy": case_type(
            lambda x, y, sx, sy: tf.concat([raw.Xdivy(x=x, y=y), raw.Xdivy(x=sx, y=sy)], axis=0),
            [_with_zeros(3, 6), _f32(3, 6, low=0.5, high=2.0) * np.sign(_f32(3, 6)), special_x, special_y],
        ),
        "LinSpace": case_type(
            lambda a, b, n: tf.concat(
                [
                    raw.LinSpace(start=a, stop=b, num=n),  # a computed count
                    raw.LinSpace(start=b, stop=a, num=np.int64(1)),  # one value: the start
                    raw.LinSpace(start=a, stop=b, num=np.int32(7)),
                ],
                axis=0,
            ),
            [np.float32(-1.25), np.float32(3.5), np.int32(6)],
        ),
        "InvertPermutation": case_type(
            lambda p, q: (raw.InvertPermutation(x=p), raw.InvertPermutation(x=q)),
            [np.array([3, 0, 4, 1, 2], np.int32), np.array([1, 2, 0], np.int64)],
        ),
        "BroadcastArgs": case_type(
            lambda a, b, c, d: (
                raw.BroadcastArgs(s0=a, s1=b),
                raw.BroadcastArgs(s0=c, s1=d),
                raw.BroadcastArgs(s0=np.zeros(0, np.int32), s1=a),  # a scalar's shape
            ),
            [
                np.array([2, 1, 4], np.int32),
                np.array([3, 1], np.int32),
                np.array([1, 0, 1], np.int64),  # 0 against 1 gives 0
                np.array([5, 1, 1, 7], np.int64),
            ],
        ),
        "ShapeN": case_type(
            lambda a, b: (
                *raw.ShapeN(input=[a, b], out_type=tf.int32),
                *raw.ShapeN(input=[b, a * 2.0, np.float32(1.0)], out_type=tf.int64),
            ),
            [_f32(2, 3), _f32(4, 1, 2)],
        ),
        "CheckNumericsV2": case_type(
            lambda x: raw.CheckNumericsV2(tensor=x, message="bad values") * 2.0 + 1.0, [_f32(2, 3, 4)]
        ),
        "Bucketize": case_type(
            lambda x, k: (
                raw.Bucketize(input=x, boundaries=[-0.5, 0.0, 0.25, 0.5]),  # exact boundary values go right
                raw.Bucketize(input=k, boundaries=[-2.5, 0.0, 1.0, 3.0]),  # integers against float bounds
                raw.Bucketize(input=tf.cast(k, tf.int64), boundaries=[0.5, 2.0]),
                raw.Bucketize(input=tf.cast(x, tf.float64), boundaries=[0.1, 0.25]),  # 0.1 as a float32
                raw.Bucketize(input=x, boundaries=[]),
            ),
            [
                np.concatenate([_f32(3, 4), np.array([[-0.5, 0.0, 0.25, 0.5]], np.float32)], axis=0),
                np.array([-3, -2, 0, 1, 2, 3, 4], np.int32),
            ],
        ),
        "Reverse": case_type(
            lambda x, y, m: (
                raw.Reverse(tensor=x, dims=np.array([True, False, True])),
                raw.Reverse(tensor=y, dims=np.array([False, True])),
                raw.Reverse(tensor=y, dims=np.array([False, False])),
                raw.Reverse(tensor=x, dims=m),  # a computed mask
            ),
            [_f32(2, 3, 4), _f32(3, 5), np.array([False, True, True])],
        ),
        "MatrixDiag": case_type(
            lambda x, v: (raw.MatrixDiag(diagonal=x), raw.MatrixDiag(diagonal=v)),
            [_f32(2, 3, 4), np.array([1.0, np.inf, -2.0], np.float32)],
        ),
        "MatrixDiagV2": case_type(
            lambda x, b: (
                raw.MatrixDiagV2(diagonal=x, k=1, num_rows=-1, num_cols=-1, padding_value=np.float32(-1.5)),
                raw.MatrixDiagV2(diagonal=x, k=np.int32(-2), num_rows=6, num_cols=-1, padding_value=np.float32(0)),
                raw.MatrixDiagV2(diagonal=x, k=1, num_rows=-1, num_cols=7, padding_value=np.float32(2)),
                raw.MatrixDiagV2(diagonal=band(b, 4), k=[-1, 2], num_rows=-1, num_cols=-1, padding_value=np.float32(9)),
            ),
            [_f32(2, 4), _f32(2, 4, 3)],
        ),
        "MatrixDiagV3": case_type(
            lambda x, b, i: (
                raw.MatrixDiagV3(diagonal=x, k=-1, num_rows=-1, num_cols=-1, padding_value=np.float32(0.5)),
                raw.MatrixDiagV3(
                    diagonal=band(b, 4), k=[-2, 1], num_rows=-1, num_cols=-1, padding_value=np.float32(-3)
                ),
                raw.MatrixDiagV3(
                    diagonal=band(b, 4),
                    k=[-2, 1],
                    num_rows=4,
                    num_cols=-1,
                    padding_value=np.float32(7),
                    align="LEFT_RIGHT",
                ),
                raw.MatrixDiagV3(
                    diagonal=band(b, 4),
                    k=[-2, 1],
                    num_rows=-1,
                    num_cols=5,
                    padding_value=np.float32(1),
                    align="RIGHT_RIGHT",
                ),
                raw.MatrixDiagV3(
                    diagonal=band(b, 4),
                    k=[-2, 1],
                    num_rows=-1,
                    num_cols=-1,
                    padding_value=np.float32(0),
                    align="LEFT_LEFT",
                ),
                raw.MatrixDiagV3(  # an integer diagonal, a computed num_cols
                    diagonal=i, k=1, num_rows=-1, num_cols=tf.shape(x)[1] + 1, padding_value=np.int32(-7)
                ),
            ),
            [_f32(3, 4), _f32(3, 4, 3), np.array([[1, 2, 3]], np.int32)],
        ),
        "MatrixDiagPart": case_type(
            lambda x, y: (raw.MatrixDiagPart(input=x), raw.MatrixDiagPart(input=y)), [_f32(2, 3, 5), _f32(4, 2)]
        ),
        "MatrixDiagPartV2": case_type(
            lambda x: (
                raw.MatrixDiagPartV2(input=x, k=1, padding_value=np.float32(0)),
                raw.MatrixDiagPartV2(input=x, k=-2, padding_value=np.float32(0)),
                raw.MatrixDiagPartV2(input=x, k=[-1, 2], padding_value=np.float32(7)),
            ),
            [_f32(2, 3, 5)],
        ),
        "MatrixDiagPartV3": case_type(
            lambda x, i: (
                raw.MatrixDiagPartV3(input=x, k=2, padding_value=np.float32(0)),
                raw.MatrixDiagPartV3(input=x, k=[-2, 1], padding_value=np.float32(-4)),
                raw.MatrixDiagPartV3(input=x, k=[-3, 0], padding_value=np.float32(5), align="LEFT_RIGHT"),
                raw.MatrixDiagPartV3(input=x, k=[-1, 1], padding_value=np.float32(6), align="RIGHT_RIGHT"),
                raw.MatrixDiagPartV3(input=x, k=[0, 2], padding_value=np.float32(3), align="LEFT_LEFT"),
                raw.MatrixDiagPartV3(input=i, k=[-1, 0], padding_value=np.int32(-9)),
            ),
            [_f32(2, 5, 3), np.arange(12, dtype=np.int32).reshape(3, 4)],
        ),
        # the diagonals are slices of input 0 (plus a constant), so the zero-size variant empties both.
        # TF's own shape function rejects a band (k = [lo, hi]) with an unknown batch dimension,
        # so the /dynamic variants of V2 and V3 are refused by TensorFlow (MatrixSetDiag's pass).
        "MatrixSetDiag": case_type(
            lambda x, y: (
                raw.MatrixSetDiag(input=x, diagonal=x[:, 0, :3] + 5.0),
                raw.MatrixSetDiag(input=y, diagonal=y[0] - 5.0),
            ),
            [_f32(2, 3, 4), _f32(5, 3)],
        ),
        "MatrixSetDiagV2": case_type(
            lambda x: (
                raw.MatrixSetDiagV2(input=x, diagonal=x[:, 0, :3] + 5.0, k=1),
                raw.MatrixSetDiagV2(input=x, diagonal=x[:, :, :3] + 5.0, k=[-1, 1]),
            ),
            [_f32(2, 3, 4)],
        ),
        "MatrixSetDiagV3": case_type(
            lambda x: (
                raw.MatrixSetDiagV3(input=x, diagonal=x[:, 0, :] + 5.0, k=-1),
                raw.MatrixSetDiagV3(input=x, diagonal=x[:, :3, :] + 5.0, k=[-2, 0]),
                raw.MatrixSetDiagV3(input=x, diagonal=x[:, 1:, :] - 5.0, k=[-2, 0], align="LEFT_RIGHT"),
                raw.MatrixSetDiagV3(input=x, diagonal=x[:, :3, :] * 3.0, k=[-2, 0], align="RIGHT_RIGHT"),
                raw.MatrixSetDiagV3(input=x, diagonal=x[:, :2, :] * 3.0, k=[-1, 0], align="LEFT_LEFT"),
            ),
            [_f32(2, 4, 3)],
        ),
        "AdjustContrastv2": case_type(
            lambda x, f, y: (
                raw.AdjustContrastv2(images=x, contrast_factor=f),
                raw.AdjustContrastv2(images=y, contrast_factor=np.float32(-0.4)),  # a single image
            ),
            [_f32(2, 4, 5, 3, low=0.0, high=1.0), np.float32(1.7), _f32(3, 2, 4, low=0.0, high=255.0)],
            atol=1e-4,
        ),
    }
