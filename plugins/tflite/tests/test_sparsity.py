"""Sparse constants made dense (irconv_tflite.sparsity), on parameters written the way
TFLite's format converter writes them; the model-level case (TensorFlow's converter with
EXPERIMENTAL_SPARSITY, DENSIFY) is tests/tflite/test_models.py::test_sparse_weights."""

from __future__ import annotations

import numpy as np
import pytest
from irconv_tflite.sparsity import Level, SparsityError, densify

DENSE = np.array([[1, 0, 0, 2], [0, 0, 0, 0], [0, 3, 4, 0], [0, 0, 0, 5]], np.float32)


def test_csr() -> None:
    """Rows dense, columns compressed: per row a segment of column indices."""
    levels = [Level(False, 4), Level(True, 0, np.array([0, 2, 2, 4, 5]), np.array([0, 3, 1, 2, 3]))]
    got = densify(np.array([1, 2, 3, 4, 5], np.float32), (4, 4), [0, 1], [], levels)
    np.testing.assert_array_equal(got, DENSE)


def test_blocks() -> None:
    """2x2 blocks (block dimensions 2 and 3 of rows and columns), the block columns compressed:
    block row 0 holds block columns 0 and 1, block row 1 holds block column 1."""
    levels = [Level(False, 2), Level(True, 0, np.array([0, 2, 3]), np.array([0, 1, 1])), Level(False, 2),
              Level(False, 2)]
    values = np.array([1, 0, 0, 0, 0, 2, 0, 0, 4, 0, 0, 5], np.float32)
    expected = DENSE.copy()
    expected[2, 1] = 0  # block (1, 0) is not stored
    got = densify(values, (4, 4), [0, 1, 2, 3], [0, 1], levels)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("values", "segments"), [(5, [0, 2, 2, 4, 9]), (4, [0, 2, 2, 4, 5])])
def test_inconsistent_parameters(values: int, segments: list[int]) -> None:
    levels = [Level(False, 4), Level(True, 0, np.array(segments), np.array([0, 3, 1, 2, 3]))]
    with pytest.raises(SparsityError):
        densify(np.ones(values, np.float32), (4, 4), [0, 1], [], levels)
