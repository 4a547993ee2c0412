"""irconv_opset.lowering.normalization against NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.frontend import f32
from irconv_opset.lowering.normalization import (
    Affine,
    BatchStatistics,
    channels_last_lrn,
    folded_batch_norm,
    normalized,
)
from irconv_opset.testing_lowering import run_lowering

RNG = np.random.default_rng(0)


def _standardised(x: np.ndarray, axes: tuple[int, ...], eps: float) -> np.ndarray:
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def test_instance_norm_with_per_channel_parameters(tmp_path: Path) -> None:
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    scale, shift = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)

    def lowering(ctx, p):  # type: ignore[no-untyped-def]
        return [normalized(ctx, p[0], [2, 3], 1e-3, Affine(scale=p[1], shift=p[2], axis=1, rank=4))]

    (got,) = run_lowering(lowering, [x, scale, shift], tmp_path)
    want = _standardised(x, (2, 3), 1e-3) * scale.reshape(3, 1, 1) + shift.reshape(3, 1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_layer_norm_with_trailing_parameters(tmp_path: Path) -> None:
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    gamma = RNG.standard_normal((3, 4)).astype(np.float32)

    def lowering(ctx, p):  # type: ignore[no-untyped-def]
        return [normalized(ctx, p[0], [-2, -1], 1e-5, Affine(scale=f32(ctx, gamma, "gamma")))]

    (got,) = run_lowering(lowering, [x], tmp_path)
    np.testing.assert_allclose(got, _standardised(x, (1, 2), 1e-5) * gamma, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("shape", "axis"), [((2, 3, 4, 4), 1), ((2, 5, 3), 2)])
def test_folded_batch_norm(shape: tuple[int, ...], axis: int, tmp_path: Path) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    c = shape[axis]
    stats = BatchStatistics(RNG.standard_normal(c), RNG.standard_normal(c), RNG.standard_normal(c),
                            RNG.uniform(0.5, 2.0, c))
    (got,) = run_lowering(lambda ctx, p: [folded_batch_norm(ctx, p[0], stats, 1e-3, [axis], len(shape))],
                          [x], tmp_path)
    along = [1] * len(shape)
    along[axis] = c
    gamma, beta, mean, var = (np.reshape(v, along) for v in (stats.gamma, stats.beta, stats.mean, stats.variance))
    np.testing.assert_allclose(got, (x - mean) / np.sqrt(var + 1e-3) * gamma + beta, rtol=1e-4, atol=1e-5)


def _lrn_reference(x: np.ndarray, radius: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    """TensorFlow's definition over the last (channel) axis of NHWC data."""
    squares = np.pad(x.astype(np.float64) ** 2, [(0, 0)] * 3 + [(radius, radius)])
    sums = sum(squares[..., i : i + x.shape[-1]] for i in range(2 * radius + 1))
    return x / (bias + alpha * sums) ** beta


@pytest.mark.parametrize("bias", [1.0, 1.5, 0.0])
@pytest.mark.parametrize("channels_known", [True, False])
def test_channels_last_lrn(bias: float, channels_known: bool, tmp_path: Path) -> None:
    layout = pytest.importorskip("irconv_layout.wrap_marked")
    x = RNG.uniform(0.5, 1.5, (1, 3, 4, 7)).astype(np.float32)
    shape = x.shape if channels_known else (1, 3, 4, None)
    (got,) = run_lowering(lambda ctx, p: [channels_last_lrn(ctx, p[0], 2, 0.3, 0.75, bias)], [x], tmp_path,
                          shapes=[shape], transforms=[layout.WrapMarked()])
    np.testing.assert_allclose(got, _lrn_reference(x, 2, 0.3, 0.75, bias), rtol=1e-4, atol=1e-5)
