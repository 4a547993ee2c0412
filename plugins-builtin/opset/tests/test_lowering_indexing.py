"""irconv_opset.lowering.indexing against NumPy: ScatterNd into zeros and the row count of
sorted segment ids, run as IR in OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from irconv_opset.lowering.indexing import scatter_nd_into_zeros, segment_count, to_i64
from irconv_opset.testing_lowering import run_lowering


def test_scatter_nd_into_zeros_sums_repeated_indices(tmp_path: Path) -> None:
    indices = np.array([[0, 1], [2, 0], [0, 1]], np.int32)
    updates = np.array([1.5, -2.0, 4.0], np.float32)
    shape = np.array([3, 2], np.int32)
    (got,) = run_lowering(
        lambda ctx, p: [scatter_nd_into_zeros(ctx, p[0], p[1], p[2], np.dtype(np.float32))],
        [indices, updates, shape], tmp_path)
    expected = np.zeros((3, 2), np.float32)
    np.add.at(expected, tuple(indices.T), updates)
    np.testing.assert_array_equal(got, expected)


def test_segment_count_is_the_largest_id_plus_one(tmp_path: Path) -> None:
    ids = np.array([0, 0, 2, 5, 5], np.int32)
    got = run_lowering(lambda ctx, p: [segment_count(ctx, p[0], "count"), to_i64(ctx, p[0], "ids")], [ids], tmp_path)
    np.testing.assert_array_equal(got[0], [6])
    assert got[0].dtype == np.int64 and got[1].dtype == np.int64


def test_segment_count_of_no_ids_is_zero(tmp_path: Path) -> None:
    (got,) = run_lowering(lambda ctx, p: [segment_count(ctx, p[0], "count")], [np.zeros(0, np.int64)], tmp_path)
    np.testing.assert_array_equal(got, [0])
