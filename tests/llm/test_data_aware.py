"""Data-aware 4-bit compression on small matrices: AWQ scales, scale estimation, --ratio's choice.

Activations here have one planted outlier channel (its values 30x the others'), as the
inputs of trained decoders' projections have a few: the error that matters is the
layer's output error on such activations, not the weights' own error.
"""

from __future__ import annotations

import numpy as np
from irconv_transforms.weight_compression.awq import channel_factors
from irconv_transforms.weight_compression.mixed_precision import activation_sensitivity, four_bit_share
from irconv_transforms.weight_compression.quantize import DeferredQuantized, Quantization, Scheme, quantization
from irconv_transforms.weight_compression.statistics import InputStatistics

SCHEME = Scheme(4, symmetric=True, group=32)


def _activations(cols: int, outlier: int | None, rows: int = 256, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float32)
    if outlier is not None:
        x[:, outlier] *= 30
    return x


def _stats(x: np.ndarray) -> InputStatistics:
    return InputStatistics(np.abs(x).mean(0), np.square(x).mean(0), x)


def _restored(weights: np.ndarray, params: Quantization) -> np.ndarray:
    levels = DeferredQuantized(weights, params).materialize()
    levels = (levels[levels.dtype.names[0]] if levels.dtype.names else levels).astype(np.float32)
    rows, cols = weights.shape
    grouped = levels.reshape(rows, params.groups, -1)
    if params.zero_point is not None:
        grouped = grouped - params.zero_point
    return (grouped * params.scale).reshape(rows, cols)


def _output_error(x: np.ndarray, weights: np.ndarray, restored: np.ndarray) -> float:
    return float(np.linalg.norm(x @ restored.T - x @ weights.T) / np.linalg.norm(x @ weights.T))


def test_awq_factors_lower_the_output_error_of_an_outlier_channel() -> None:
    weights = np.random.default_rng(1).standard_normal((96, 128)).astype(np.float32)
    calibration, held_out = _activations(128, 5, seed=2), _activations(128, 5, seed=3)
    factor = channel_factors([weights], [SCHEME], _stats(calibration), np.float32)
    assert factor is not None and factor.shape == (128,)
    assert factor[5] == factor.max()  # the outlier channel's weights get the finest steps
    data_free = _restored(weights, quantization(weights, SCHEME))
    scaled = weights * factor
    awq = _restored(scaled, quantization(scaled, SCHEME)) / factor
    assert _output_error(held_out, weights, awq) < 0.8 * _output_error(held_out, weights, data_free)


def test_awq_leaves_weights_alone_without_outliers_that_matter() -> None:
    """Activations of one magnitude everywhere: no channel gains from a finer step."""
    weights = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32)
    flat = np.ones((64, 64), np.float32) * np.sign(np.random.default_rng(2).standard_normal((64, 64))).astype(np.float32)
    factor = channel_factors([weights], [SCHEME], _stats(flat), np.float32)
    assert factor is None or np.allclose(factor, 1.0)


def test_scale_estimation_lowers_the_activation_weighted_error() -> None:
    weights = np.random.default_rng(4).standard_normal((64, 128)).astype(np.float32)
    x = _activations(128, 40)
    importance = np.square(x).mean(0)
    for scheme in (SCHEME, Scheme(4, symmetric=False, group=32)):
        range_based = quantization(weights, scheme, importance=importance)
        refined = quantization(weights, scheme, importance=importance, refine=True)
        assert refined.squared_error < 0.95 * range_based.squared_error, scheme
        held_out = _activations(128, 40, seed=9)
        assert _output_error(held_out, weights, _restored(weights, refined)) < _output_error(
            held_out, weights, _restored(weights, range_based)
        )


def test_weighted_ranges_beat_data_free_ones_on_the_outputs() -> None:
    weights = np.random.default_rng(5).standard_normal((64, 128)).astype(np.float32)
    x = _activations(128, 77)
    data_free = quantization(weights, SCHEME)
    aware = quantization(weights, SCHEME, importance=np.square(x).mean(0), refine=True)
    held_out = _activations(128, 77, seed=6)
    assert _output_error(held_out, weights, _restored(weights, aware)) < _output_error(
        held_out, weights, _restored(weights, data_free)
    )


def test_the_layer_with_the_outlier_input_stays_int8() -> None:
    """Three layers of the same size; the second reads activations with an outlier
    channel. With a share of 2/3 in 4 bits, it is the one kept in int8."""
    rng = np.random.default_rng(7)
    layers = [rng.standard_normal((64, 128)).astype(np.float32) for _ in range(3)]
    inputs = [_activations(128, None, seed=10), _activations(128, 3, seed=11), _activations(128, None, seed=12)]
    sensitivity = []
    for weights, x in zip(layers, inputs, strict=True):
        importance = np.square(x).mean(0)
        four = quantization(weights, SCHEME, importance=importance)
        eight = quantization(weights, Scheme(8, symmetric=False), importance=importance)
        sensitivity.append(activation_sensitivity(four, eight))
    chosen = four_bit_share([w.size for w in layers], sensitivity, 2 / 3)
    assert sorted(chosen) == [0, 2]


def test_int8_goes_to_the_layer_whose_4_bits_add_most_output_error_whatever_its_size() -> None:
    """A small layer whose input has a 10x channel (more error per weight) and one four times
    its size without (more error in all): with room for one of them in int8, the larger
    error is the one removed. The output errors of the two choices, measured on held-out
    activations, say which is better."""
    rng = np.random.default_rng(21)
    small, large = rng.standard_normal((64, 128)).astype(np.float32), rng.standard_normal((256, 128)).astype(np.float32)
    x_small, x_large = _activations(128, None, seed=22), _activations(128, None, seed=23)
    x_small[:, 5] *= 10
    sensitivity, restored = [], []
    for weights, x in ((small, x_small), (large, x_large)):
        importance = np.square(x).mean(0)
        four = quantization(weights, SCHEME, importance=importance)
        eight = quantization(weights, Scheme(8, symmetric=False), importance=importance)
        sensitivity.append(activation_sensitivity(four, eight))
        restored.append((_restored(weights, four), _restored(weights, eight)))
    per_weight_small = sensitivity[0] / small.size > sensitivity[1] / large.size
    assert per_weight_small  # the case the test is about: per weight, the small layer looks worse
    chosen = four_bit_share([small.size, large.size], sensitivity, 0.8)
    assert chosen == [0]  # the large layer stays int8
    held_small, held_large = _activations(128, None, seed=24), _activations(128, None, seed=25)
    held_small[:, 5] *= 10

    def added(x: np.ndarray, weights: np.ndarray, restored: np.ndarray) -> float:
        """The squared error of the layer's outputs per token."""
        return float(np.square(x @ (restored - weights).T).sum(1).mean())

    small_four = added(held_small, small, restored[0][0]) + added(held_large, large, restored[1][1])
    large_four = added(held_small, small, restored[0][1]) + added(held_large, large, restored[1][0])
    assert small_four < large_four


def test_asymmetric_scale_estimation_moves_zero_points_where_that_lowers_the_error() -> None:
    """A zero point is a level of the fit too: groups whose important channels sit between
    levels get another zero point, and the weighted error falls below the range-based one."""
    scheme = Scheme(4, symmetric=False, group=32)
    weights = np.random.default_rng(13).standard_normal((64, 128)).astype(np.float32)
    x = _activations(128, 21)
    importance = np.square(x).mean(0)
    range_based = quantization(weights, scheme, importance=importance)
    refined = quantization(weights, scheme, importance=importance, refine=True)
    assert range_based.zero_point is not None and refined.zero_point is not None
    moved = refined.zero_point != range_based.zero_point
    assert moved.any()
    assert refined.squared_error < 0.9 * range_based.squared_error
    held_out = _activations(128, 21, seed=14)
    assert _output_error(held_out, weights, _restored(weights, refined)) < _output_error(
        held_out, weights, _restored(weights, range_based)
    )
