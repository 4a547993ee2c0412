"""irconv_opset.lowering.softmax against NumPy: one axis, and the input seen as 2-D."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv_opset.lowering.softmax import flattened_softmax, softmax
from irconv_opset.testing_lowering import run_lowering


def _reference(x: np.ndarray, axes: tuple[int, ...], log: bool) -> np.ndarray:
    shifted = x - x.max(axis=axes, keepdims=True)
    total = np.exp(shifted).sum(axis=axes, keepdims=True)
    return shifted - np.log(total) if log else np.exp(shifted) / total


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
def test_flattened_softmax_normalises_the_trailing_axes_jointly(axis: int, log: bool, tmp_path: Path) -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32) * 3
    (got,) = run_lowering(lambda ctx, p: [flattened_softmax(ctx, p[0], axis, log=log)], [x], tmp_path)
    first = axis % x.ndim
    np.testing.assert_allclose(got, _reference(x, tuple(range(first, x.ndim)), log), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [1, -2])
def test_flattened_softmax_of_unknown_rank(axis: int, tmp_path: Path) -> None:
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    (got,) = run_lowering(lambda ctx, p: [flattened_softmax(ctx, p[0], axis)], [x], tmp_path, shapes=[None])
    first = axis % x.ndim
    np.testing.assert_allclose(got, _reference(x, tuple(range(first, x.ndim)), False), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_on_one_axis(log: bool, tmp_path: Path) -> None:
    x = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    (got,) = run_lowering(lambda ctx, p: [softmax(ctx, p[0], 1, log=log)], [x], tmp_path)
    np.testing.assert_allclose(got, _reference(x, (1,), log), rtol=1e-5, atol=1e-6)
