"""Per-op cases for the TF extractors in ``irconv_tf.extractors.scatter``: scatter, segment, unique and stitch ops."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(11)


def _f32(*shape: int) -> np.ndarray:
    return _R.uniform(-1.0, 1.0, shape).astype(np.float32)


def _i32(*values: int) -> np.ndarray:
    return np.array(values, np.int32)


def _i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def _sorted_segments(raw: Any, name: str) -> tuple[Any, list[np.ndarray]]:
    op = getattr(raw, f"Segment{name}")
    return (lambda x: op(data=x, segment_ids=_i32(0, 0, 1, 3, 3)), [_f32(5, 2, 3)])  # segment 2 stays empty


def _unsorted_segments(raw: Any, name: str) -> tuple[Any, list[np.ndarray]]:
    op = getattr(raw, f"UnsortedSegment{name}")
    ids = np.array([[2, 0, -1], [2, 4, 0]], np.int64)  # -1 is dropped, segments 1 and 3 stay empty
    return (lambda x: op(data=x, segment_ids=ids, num_segments=np.int32(5)), [_f32(2, 3, 4)])


def _sparse_segments(raw: Any, name: str, **given: Any) -> tuple[Any, list[np.ndarray]]:
    op = getattr(raw, f"SparseSegment{name}")
    rows, ids = _i32(0, 2, 3, 1, 3), _i64(0, 0, 1, 3, 3)  # segment 2 stays empty
    return (lambda x: op(data=x, indices=rows, segment_ids=ids, **given), [_f32(4, 3)])


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops
    return {
        "ScatterNd": case_type(
            lambda u: raw.ScatterNd(
                indices=np.array([[[0], [2]], [[0], [3]]], np.int32), updates=u, shape=_i32(5, 3)
            ),  # row 0 twice: the updates add
            [_f32(2, 2, 3)],
        ),
        "UnsortedSegmentSum": case_type(
            lambda x: raw.UnsortedSegmentSum(
                data=x, segment_ids=np.array([[2, 0, -1], [2, 4, 0]], np.int64), num_segments=np.int32(5)
            ),  # -1 is dropped, segment 1 and 3 stay empty
            [_f32(2, 3, 4)],
        ),
        "SegmentSum": case_type(lambda x: raw.SegmentSum(data=x, segment_ids=_i32(0, 0, 1, 3, 3)), [_f32(5, 2, 3)]),
        **{f"Segment{name}": case_type(*_sorted_segments(raw, name)) for name in ("Mean", "Prod", "Min", "Max")},
        **{f"UnsortedSegment{name}": case_type(*_unsorted_segments(raw, name)) for name in ("Prod", "Min", "Max")},
        **{f"SparseSegment{name}": case_type(*_sparse_segments(raw, name)) for name in ("Mean", "SqrtN")},
        **{
            f"SparseSegment{name}WithNumSegments": case_type(
                *_sparse_segments(raw, f"{name}WithNumSegments", num_segments=6)
            )
            for name in ("Sum", "Mean", "SqrtN")
        },
        "SparseSegmentSum": case_type(
            lambda x: raw.SparseSegmentSum(data=x, indices=_i32(0, 2, 3, 1, 3), segment_ids=_i64(0, 0, 1, 3, 3)),
            [_f32(4, 3)],
        ),
        "Unique": case_type(
            lambda x: raw.Unique(x=x, out_idx=tf.int64), [np.array([4, 1, 4, -2, 1, 7, 4, 0], np.int32)]
        ),
        "UniqueWithCounts": case_type(
            lambda x: raw.UniqueWithCounts(x=x, out_idx=tf.int32), [np.array([4, 0, 4, -2, 0, 7, 4, 0], np.int32)]
        ),  # 0 occurs three times (the conversion appends a zero of its own)
        "SparseToDense": case_type(
            lambda v: raw.SparseToDense(
                sparse_indices=np.array([[0, 1], [1, 0], [2, 3]], np.int64),
                output_shape=_i64(3, 4),
                sparse_values=v,
                default_value=np.float32(-1),
            ),
            [_f32(3)],
        ),
        "UnravelIndex": case_type(
            lambda x: raw.UnravelIndex(indices=x, dims=_i64(3, 4, 2)), [np.array([0, 5, 11, 23, 17], np.int64)]
        ),
        "DynamicStitch": case_type(
            lambda a, b: raw.DynamicStitch(indices=[_i32(0, 2, 4), np.array([[1, 2], [3, 0]], np.int32)], data=[a, b]),
            [_f32(3, 2), _f32(2, 2, 2)],  # 0 and 2 written twice: the later data wins
        ),
        "ParallelDynamicStitch": case_type(
            lambda a, b: raw.ParallelDynamicStitch(indices=[_i32(3, 1), np.array([[0], [2]], np.int32)], data=[a, b]),
            [_f32(2, 3), _f32(2, 1, 3)],
        ),
        "ListDiff": case_type(
            lambda x, y: raw.ListDiff(x=x, y=y, out_idx=tf.int64),
            [np.array([1, 2, 3, 4, 5, 6, 3], np.int32), np.array([1, 3, 5, 9], np.int32)],
        ),
        "TensorScatterUpdate": case_type(
            lambda i, u, t, v: (
                raw.TensorScatterUpdate(tensor=t, indices=i, updates=u),
                raw.TensorScatterUpdate(tensor=t, indices=np.array([[4, 2], [0, 0]], np.int64), updates=v),
            ),
            [np.array([[3], [0], [4]], np.int32), _f32(3, 3), _f32(5, 3), _f32(2)],
        ),
        "TensorScatterAdd": case_type(
            lambda i, u, t: raw.TensorScatterAdd(tensor=t, indices=i, updates=u),  # row 1 three times
            [np.array([[1], [3], [1], [1]], np.int32), _f32(4, 3), _f32(5, 3)],
        ),
        "TensorScatterSub": case_type(
            lambda i, u, t, c: (
                raw.TensorScatterSub(tensor=t, indices=i, updates=u),
                raw.TensorScatterSub(
                    tensor=c, indices=np.array([[1, 1], [0, 2], [1, 1]], np.int64), updates=_i32(4, -2, 7)
                ),
            ),
            [np.array([[2], [0], [2]], np.int64), _f32(3, 3), _f32(4, 3), np.array([[1, 2, 3], [4, 5, 6]], np.int32)],
        ),
        "TensorScatterMax": case_type(
            lambda i, u, t: raw.TensorScatterMax(tensor=t, indices=i, updates=u),
            [np.array([[0, 1], [2, 0], [0, 1]], np.int32), _f32(3, 4), _f32(3, 2, 4)],
        ),
        "TensorScatterMin": case_type(
            lambda i, u, t: raw.TensorScatterMin(tensor=t, indices=i, updates=u),
            [np.array([[0, 1], [2, 0], [0, 1]], np.int32), _f32(3, 4), _f32(3, 2, 4)],
        ),
        "Bincount": case_type(
            lambda a, w, b: (
                raw.Bincount(arr=a, size=np.int32(5), weights=np.zeros(0, np.float32)),  # counts; 5, 6 dropped
                raw.Bincount(arr=a, size=np.int32(7), weights=w),
                raw.Bincount(arr=b, size=np.int32(3), weights=tf.cast(b * 10 - 7, tf.int32)),
                raw.Bincount(arr=b, size=np.int32(0), weights=np.zeros(0, np.float64)),
            ),
            [np.array([[0, 2, 2, 6, 1], [4, 5, 2, 0, 0]], np.int32), _f32(2, 5), _i32(2, 0, 2, 1, 4, 2)],
        ),
        "DenseBincount": case_type(
            lambda a, w, v: (
                raw.DenseBincount(input=a, size=np.int64(5), weights=np.zeros(0, np.int32)),  # per row
                raw.DenseBincount(input=a, size=np.int64(6), weights=w),
                raw.DenseBincount(input=a, size=np.int64(4), weights=w, binary_output=True),
                raw.DenseBincount(input=v, size=np.int32(4), weights=np.zeros(0, np.float64)),
                raw.DenseBincount(input=v, size=np.int32(8), weights=np.zeros(0, np.float32), binary_output=True),
            ),
            [np.array([[0, 2, 2, 6, 1], [4, 5, 2, 0, 0], [3, 3, 3, 3, 3]], np.int64), _f32(3, 5), _i32(1, 3, 1, 0, 9)],
        ),
    }
