"""irconv_opset.lowering.elementwise and .reduction against NumPy: the named unary, binary and
reduction kinds, add_n, atan2 and floor_divide, each run as IR in OpenVINO."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from irconv.frontend import i64
from irconv_opset.lowering.elementwise import Binary, Unary, add_n, atan2, binary, floor_divide, unary
from irconv_opset.lowering.reduction import Reduction, reduce
from irconv_opset.testing_lowering import run_lowering

_RNG = np.random.default_rng(0)

#: NumPy's answer for each unary kind, and an input in the kind's domain.
_UNARY: dict[Unary, tuple[Callable[[np.ndarray], np.ndarray], np.ndarray]] = {
    Unary.ABS: (np.abs, _RNG.standard_normal(6)),
    Unary.ACOSH: (np.arccosh, 1 + _RNG.random(6)),
    Unary.ATANH: (np.arctanh, _RNG.uniform(-0.9, 0.9, 6)),
    Unary.CEILING: (np.ceil, 3 * _RNG.standard_normal(6)),
    Unary.EXP: (np.exp, _RNG.standard_normal(6)),
    Unary.NEGATIVE: (np.negative, _RNG.standard_normal(6)),
    Unary.SIGMOID: (lambda x: 1 / (1 + np.exp(-x)), _RNG.standard_normal(6)),
    Unary.SOFTSIGN: (lambda x: x / (1 + np.abs(x)), _RNG.standard_normal(6)),
    Unary.SQRT: (np.sqrt, _RNG.random(6)),
    Unary.HSWISH: (lambda x: x * np.clip(x + 3, 0, 6) / 6, 4 * _RNG.standard_normal(6)),
}


@pytest.mark.parametrize("kind", list(_UNARY), ids=lambda kind: kind.name)
def test_unary_kinds_compute_what_they_name(kind: Unary, tmp_path: Path) -> None:
    reference, x = _UNARY[kind]
    x = x.astype(np.float32)
    (got,) = run_lowering(lambda ctx, p: [unary(ctx, kind, p[0])], [x], tmp_path)
    np.testing.assert_allclose(got, reference(x), rtol=1e-5, atol=1e-6)


_BINARY: dict[Binary, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    Binary.SUBTRACT: np.subtract,
    Binary.FLOOR_MOD: np.mod,  # the divisor's sign, as Python's %
    Binary.MOD: np.fmod,  # the dividend's sign, as C's %
    Binary.SQUARED_DIFFERENCE: lambda a, b: (a - b) ** 2,
    Binary.LESS_EQUAL: np.less_equal,
    Binary.MAXIMUM: np.maximum,
}


@pytest.mark.parametrize("kind", list(_BINARY), ids=lambda kind: kind.name)
def test_binary_kinds_broadcast_as_numpy(kind: Binary, tmp_path: Path) -> None:
    a = (5 * _RNG.standard_normal((2, 3))).astype(np.float32)
    b = np.array([1.5, -2.0, 3.0], np.float32)
    (got,) = run_lowering(lambda ctx, p: [binary(ctx, kind, p[0], p[1])], [a, b], tmp_path)
    np.testing.assert_allclose(got, _BINARY[kind](a, b), rtol=1e-5, atol=1e-5)


def test_bitwise_binary_on_integers(tmp_path: Path) -> None:
    a = np.array([12, -7, 255, 0], np.int32)
    b = np.array([10, 3, 15, 9], np.int32)
    got = run_lowering(lambda ctx, p: [binary(ctx, Binary.BITWISE_XOR, p[0], p[1]),
                                       binary(ctx, Binary.BITWISE_RIGHT_SHIFT, p[0], p[1])], [a, b], tmp_path)
    np.testing.assert_array_equal(got[0], a ^ b)
    np.testing.assert_array_equal(got[1], a >> b)


def test_add_n_sums_every_term(tmp_path: Path) -> None:
    terms = [_RNG.standard_normal((2, 3)).astype(np.float32) for _ in range(4)]
    (got,) = run_lowering(lambda ctx, p: [add_n(ctx, p)], terms, tmp_path)
    np.testing.assert_allclose(got, sum(terms), rtol=1e-5, atol=1e-6)


def test_atan2_in_every_quadrant_and_on_the_axes(tmp_path: Path) -> None:
    y = np.array([1.0, 1.0, -1.0, -1.0, 2.0, -2.0, 0.0, 0.0, 0.0, 3.0], np.float32)
    x = np.array([1.0, -1.0, -1.0, 1.0, 0.0, 0.0, 0.0, 2.0, -2.0, -0.5], np.float32)
    (got,) = run_lowering(lambda ctx, p: [atan2(ctx, p[0], p[1])], [y, x], tmp_path)
    expected = np.arctan2(y, x)
    expected[(y == 0) & (x < 0)] = np.pi  # +0 over a negative x: numpy's pi as well
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


_REDUCTION: dict[Reduction, Callable[..., np.ndarray]] = {
    Reduction.SUM: np.sum,
    Reduction.MEAN: np.mean,
    Reduction.MAX: np.max,
    Reduction.MIN: np.min,
    Reduction.PROD: np.prod,
    Reduction.L1: lambda x, axis, keepdims: np.abs(x).sum(axis=axis, keepdims=keepdims),
    Reduction.L2: lambda x, axis, keepdims: np.sqrt((x * x).sum(axis=axis, keepdims=keepdims)),
}


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("kind", list(_REDUCTION), ids=lambda kind: kind.name)
def test_reductions_over_axes(kind: Reduction, keep: bool, tmp_path: Path) -> None:
    x = _RNG.standard_normal((2, 3, 4)).astype(np.float32)
    (got,) = run_lowering(lambda ctx, p: [reduce(ctx, kind, p[0], i64(ctx, [0, 2]), keep)], [x], tmp_path)
    np.testing.assert_allclose(got, _REDUCTION[kind](x, axis=(0, 2), keepdims=keep), rtol=1e-5, atol=1e-5)


def test_logical_reductions(tmp_path: Path) -> None:
    x = np.array([[True, False, True], [True, True, True]])
    got = run_lowering(lambda ctx, p: [reduce(ctx, Reduction.ALL, p[0], i64(ctx, [1]), False),
                                       reduce(ctx, Reduction.ANY, p[0], i64(ctx, [0]), True)], [x], tmp_path)
    np.testing.assert_array_equal(got[0], x.all(axis=1))
    np.testing.assert_array_equal(got[1], x.any(axis=0, keepdims=True))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_floor_divide_rounds_toward_minus_infinity(dtype: type, tmp_path: Path) -> None:
    """Every sign pair, exact and inexact quotients (the CPU plugin truncates an integer Divide)."""
    a = np.array([7, -7, 7, -7, 6, -6, 0, 19], dtype)
    b = np.array([3, 3, -3, -3, 3, -3, 5, -4], dtype)
    integer = np.issubdtype(dtype, np.integer)
    (got,) = run_lowering(lambda ctx, p: [floor_divide(ctx, p[0], p[1], integer)], [a, b], tmp_path)
    np.testing.assert_array_equal(got, np.floor_divide(a, b))
