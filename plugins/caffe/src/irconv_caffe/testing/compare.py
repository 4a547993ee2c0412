"""Compare converted outputs with a reference runtime's (OpenCV's Caffe importer)."""

from __future__ import annotations

import numpy as np


def assert_close(name: str, actual: np.ndarray, expected: np.ndarray, rtol: float = 1e-3, atol: float = 1e-4) -> None:
    """Max abs difference within ``atol + rtol * max|expected|`` (scale-aware for big logits)."""
    if actual.size != expected.size:
        raise AssertionError(f"{name}: {actual.shape} values vs reference {expected.shape}")
    actual = actual.reshape(expected.shape)
    diff = float(np.abs(actual.astype(np.float64) - expected).max()) if expected.size else 0.0
    bound = atol + rtol * float(np.abs(expected).max() if expected.size else 0.0)
    if not diff <= bound:
        raise AssertionError(f"{name}: max abs difference {diff:.3g} exceeds {bound:.3g}")


def detections(output: np.ndarray) -> np.ndarray:
    """The real rows of a DetectionOutput tensor (N x 7), padding rows dropped.

    OpenVINO ends the list with image_id -1; OpenCV pads with zero rows.
    """
    rows = output.reshape(-1, 7).astype(np.float64)
    end = np.nonzero(rows[:, 0] < 0)[0]
    if end.size:
        rows = rows[: end[0]]
    return rows[rows[:, 2] > 0]


def assert_same_detections(name: str, actual: np.ndarray, expected: np.ndarray, atol: float = 1e-4) -> None:
    """Same boxes as sets: each reference row (image, label, score, box) has a match.

    Rows whose score ties the last kept one may differ (which of equal candidates
    survives keep_top_k is arbitrary).
    """
    got, want = detections(actual), detections(expected)
    if not len(want):
        raise AssertionError(f"{name}: the reference found no detections; the comparison would be empty")
    floor = want[:, 2].min()
    unmatched = [row for row in want if not _has_match(got, row, atol) and row[2] > floor + atol]
    if unmatched or abs(len(got) - len(want)) > sum(abs(want[:, 2] - floor) <= atol):
        raise AssertionError(
            f"{name}: {len(got)} detections vs {len(want)} in the reference; "
            f"{len(unmatched)} reference boxes unmatched, e.g. {unmatched[:2]}"
        )


def _has_match(rows: np.ndarray, row: np.ndarray, atol: float) -> bool:
    if not len(rows):
        return False
    close = np.all(np.abs(rows[:, :3] - row[:3]) <= atol, axis=1) & np.all(
        np.abs(rows[:, 3:] - row[3:]) <= 10 * atol, axis=1
    )
    return bool(close.any())
