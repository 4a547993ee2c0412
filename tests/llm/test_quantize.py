"""irconv_transforms.weight_compression.quantize: data-free scales and levels, on small hand-checked matrices."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.ops.deferred import DeferredProduct
from irconv.types import ElementType
from irconv_transforms.weight_compression.quantize import DeferredQuantized, Scheme, narrowed_search, quantization
from irconv_transforms.weight_compression.range_kernel import compiled_levels_into, compiled_offset_sums


def test_symmetric_4bit_maps_the_largest_magnitude_to_the_lowest_level() -> None:
    weights = np.array([[-2.0, 1.0, 0.5, 0.0], [0.25, 0.75, 3.0, -1.5]], np.float32)
    params = quantization(weights, Scheme(4, symmetric=True))
    np.testing.assert_array_equal(params.scale[:, 0, 0], [0.25, -0.375])  # -2 / -8 and 3 / -8
    levels = DeferredQuantized(weights, params).materialize()
    assert levels.dtype == ElementType.i4.numpy
    np.testing.assert_array_equal(levels["i4"], [[-8, 4, 2, 0], [-1, -2, -8, 4]])
    assert params.zero_point is None


def test_asymmetric_8bit_spreads_min_max_over_every_level() -> None:
    weights = np.array([[-1.0, 0.0, 1.0, 2.0]], np.float32)
    params = quantization(weights, Scheme(8, symmetric=False))
    assert params.zero_point is not None
    scale, zero = float(params.scale[0, 0, 0]), int(params.zero_point[0, 0, 0])
    assert abs(scale - 3.0 / 255) < 1e-6 and zero == 85
    levels = DeferredQuantized(weights, params).materialize()
    assert levels.dtype == np.uint8 and levels.min() == 0 and levels.max() == 255
    np.testing.assert_allclose((levels.astype(np.float32) - zero) * scale, weights, atol=scale / 2)


def test_groups_cut_the_input_channels() -> None:
    weights = np.arange(2 * 64, dtype=np.float32).reshape(2, 64) - 50
    params = quantization(weights, Scheme(4, symmetric=False, group=16))
    assert params.scale.shape == (2, 4, 1)
    assert DeferredQuantized(weights, params).shape == (2, 4, 16)
    assert quantization(weights, Scheme(4, symmetric=False, group=48)).scale.shape == (2, 1, 1)  # 48 does not divide 64


def test_a_rescaling_left_uncomputed_quantizes_like_its_product() -> None:
    rng = np.random.default_rng(0)
    base = rng.standard_normal((96, 64)).astype(np.float32)
    factor = rng.uniform(0.5, 2.0, (1, 64)).astype(np.float32)
    deferred = DeferredProduct.of(base, factor, np.dtype(np.float32))
    product = deferred.materialize()
    for scheme in (Scheme(8, symmetric=False), Scheme(4, symmetric=True, group=32)):
        lazy, eager = quantization(deferred.T, scheme), quantization(product.T, scheme)
        np.testing.assert_array_equal(lazy.scale, eager.scale)
        blocks = [block.materialize() for block in DeferredQuantized(deferred.T, lazy).blocks(1000)]
        np.testing.assert_array_equal(np.concatenate(blocks), DeferredQuantized(product.T, eager).materialize())


def _awkward_weights() -> np.ndarray:
    """Normal values with groups made to tie: zeros, -0.0, equal and opposite extremes,
    values on the level grid, a NaN, an infinity, subnormal and huge values."""
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((64, 256)).astype(np.float32) * 0.02
    weights[1] = 0.0
    weights[2, :128] = -0.0
    weights[3, 0], weights[3, 1] = 0.5, -0.5
    weights[4] = rng.integers(-8, 8, 256) * np.float32(0.125)
    weights[5, 7] = np.nan
    weights[6, 200] = np.inf
    weights[7] *= np.float32(1e-36)
    weights[8] *= np.float32(1e36)
    weights[9, 128:] = 1.0
    return weights


@pytest.mark.parametrize(
    "scheme",
    [Scheme(4, True, 128), Scheme(4, False, 128), Scheme(4, True, 32), Scheme(8, False), Scheme(8, True), Scheme(4, True)],
    ids=lambda s: f"{s.describe()}-g{s.group}",
)
@pytest.mark.parametrize("scale_dtype", [np.float16, np.float32])
@pytest.mark.parametrize("loop", ["numpy", "compiled"])
def test_the_fused_range_search_chooses_what_the_exact_one_does(scheme: Scheme, scale_dtype: type, loop: str) -> None:
    """``quantization`` (``range_search``: error estimates from NumPy's passes or the compiled
    loop, exact search where they are too close) against ``narrowed_search`` (every range's
    f64 error): the same scales bit for bit, errors within the estimates' bound."""
    weights = _awkward_weights()
    offset_sums = compiled_offset_sums() if loop == "compiled" else None
    assert loop == "numpy" or offset_sums is not None, "numba is a dependency of irconv-transforms"
    with np.errstate(all="ignore"):
        fast = quantization(weights, scheme, scale_dtype, offset_sums=offset_sums)
        scale, zero_point, error = narrowed_search(weights.reshape(64, scheme.groups(256), -1), scheme, scale_dtype)
    np.testing.assert_array_equal(fast.scale.view(np.uint32), scale.view(np.uint32))
    if zero_point is not None:
        np.testing.assert_array_equal(fast.zero_point, zero_point)
    finite = np.isfinite(error).reshape(64, -1).all(-1)  # the rows whose errors are numbers
    rows = quantization(weights[finite], scheme, scale_dtype, offset_sums=offset_sums)
    assert rows.squared_error == pytest.approx(float(error[finite].sum()), rel=1e-4)


@pytest.mark.parametrize(
    "scheme",
    [Scheme(4, True, 128), Scheme(4, False, 32), Scheme(8, False), Scheme(8, True)],
    ids=lambda s: f"{s.describe()}-g{s.group}",
)
def test_the_compiled_levels_are_numpys(scheme: Scheme) -> None:
    """The writer's levels from the compiled loop (``range_kernel.compiled_levels_into``) and
    from NumPy's passes: the same integers, NaN and infinite weights included, a block at a
    time and on a transposed view."""
    levels_into = compiled_levels_into()
    assert levels_into is not None, "numba is a dependency of irconv-transforms"
    weights = _awkward_weights()
    for matrix in (weights, np.ascontiguousarray(weights.T).T):
        with np.errstate(all="ignore"):
            params = quantization(matrix, scheme, np.float16)
            numpy_levels = DeferredQuantized(matrix, params).materialize()
            compiled = DeferredQuantized(matrix, params, levels_into=levels_into)
            np.testing.assert_array_equal(compiled.materialize(), numpy_levels)
            blocks = [block.materialize() for block in compiled.blocks(1000)]
        np.testing.assert_array_equal(np.concatenate(blocks), numpy_levels)
