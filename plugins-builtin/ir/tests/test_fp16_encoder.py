"""The bit-level f32 -> f16 encoder against NumPy's own cast, bit for bit.

NumPy's ``astype(np.float16)`` is the reference for every non-NaN input (a NaN only has to
stay a NaN of its sign); :func:`encode_f16` then clamps finite overflow to +-65504, so the
reference does the same. ``IRCONV_FP16_EXHAUSTIVE=1`` also runs all 2**32 patterns (a few
minutes).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from irconv_ir import fp16
from irconv_ir.fp16 import encode_f16

#: Every f16 bit pattern.
HALVES = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def _reference(values: np.ndarray) -> tuple[np.ndarray, int, int]:
    """What encode_f16 must return for flat f32 ``values``: the f16 bits, values clamped,
    non-zero values that became zero. (Compared as bits: NumPy's f16 comparisons are slow.)"""
    with np.errstate(over="ignore", invalid="ignore"):
        half = values.astype(np.float16).view(np.uint16)
    magnitude = values.view(np.uint32) & 0x7FFF_FFFF
    beyond = ((half & 0x7FFF) == 0x7C00) & (magnitude < 0x7F80_0000)
    half[beyond] = half[beyond] & 0x8000 | 0x7BFF  # +-65504
    zeroed = ((half & 0x7FFF) == 0) & (magnitude != 0)
    return half, int(np.count_nonzero(beyond)), int(np.count_nonzero(zeroed))


def _assert_encodes_like_numpy(values: np.ndarray) -> None:
    out = np.empty(values.size, np.float16)
    counts = encode_f16(values, out)
    flat = np.ascontiguousarray(values).reshape(-1)
    expected, clamped, zeroed = _reference(flat)
    got = out.view(np.uint16)
    nan = (flat.view(np.uint32) & 0x7FFF_FFFF) > 0x7F80_0000
    wrong = np.flatnonzero((got != expected) & ~nan)[:5]
    assert not wrong.size, [f"{b:#010x}: {g:#06x}, not {e:#06x}" for b, g, e in _columns(flat, got, expected, wrong)]
    assert np.all((got[nan] & 0x7FFF) > 0x7C00)  # a NaN stays a NaN...
    assert np.array_equal(got[nan] & 0x8000, expected[nan] & 0x8000)  # ...of its sign
    assert counts == (clamped, zeroed)


def _columns(flat: np.ndarray, got: np.ndarray, expected: np.ndarray, lanes: np.ndarray) -> list[tuple[int, ...]]:
    """(f32 bits, f16 got, f16 expected) of ``lanes``, for a failure message."""
    return list(zip(flat.view(np.uint32)[lanes].tolist(), got[lanes].tolist(), expected[lanes].tolist(), strict=True))


def _around(patterns: np.ndarray, ulps: int = 4) -> np.ndarray:
    """f32 values within ``ulps`` f32 steps of each f32 bit pattern (both signs)."""
    steps = np.arange(-ulps, ulps + 1, dtype=np.int64)
    near = (patterns.astype(np.int64)[:, None] + steps).reshape(-1)
    near = near[(near >= 0) & (near < 0x7F80_0000)].astype(np.uint32)
    return np.concatenate([near, near | 0x8000_0000]).view(np.float32)


def test_strided_sweep_over_all_bit_patterns():
    patterns = np.arange(5, 1 << 32, 1021, dtype=np.uint64).astype(np.uint32)  # 4.2M, all exponents
    _assert_encodes_like_numpy(patterns.view(np.float32))


def test_every_f16_value_and_every_rounding_midpoint():
    """Each finite f16 value and each half-way point between neighbours (where the tie
    rule decides, 65520 among them) +-4 f32 steps: every rounding boundary there is."""
    positive_finite = HALVES[HALVES < 0x7C00]
    exact = positive_finite.view(np.float16).astype(np.float32)
    upper = np.append(exact[1:], np.float32(65536))  # the infinity's would-be value
    midpoints = ((exact.astype(np.float64) + upper) / 2).astype(np.float32)  # exact: 12 bits
    _assert_encodes_like_numpy(_around(np.concatenate([exact, midpoints]).view(np.uint32)))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2.0**-25, 0x0000),  # half the smallest subnormal: a tie, to the even zero
        (np.nextafter(np.float32(2.0**-25), np.float32(1)), 0x0001),
        (3 * 2.0**-25, 0x0002),  # 1.5 subnormal steps: a tie, to the even 2
        (2.0**-14 - 2.0**-25, 0x0400),  # the largest subnormal's upper tie rounds up to the smallest normal
        (np.nextafter(np.float32(2.0**-14 - 2.0**-25), np.float32(0)), 0x03FF),
        (2.0 - 2.0**-11, 0x4000),  # tie below 2: up a binade
        (1 + 2.0**-11, 0x3C00),  # tie above 1: to the even 1
        (65504, 0x7BFF),
        (np.nextafter(np.float32(65520), np.float32(0)), 0x7BFF),
        (65520, 0x7BFF),  # overflows to infinity: clamped to 65504
        (-1e38, 0xFBFF),
        (-0.0, 0x8000),
        (1e-45, 0x0000),  # an f32 subnormal
        (np.inf, 0x7C00),
        (-np.inf, 0xFC00),
    ],
)
def test_named_boundaries(value, expected):
    out = np.empty(1, np.float16)
    encode_f16(np.array([value], np.float32), out)
    assert hex(out.view(np.uint16)[0]) == hex(expected)


@pytest.mark.parametrize(
    "layout",
    [
        lambda a: a.reshape(600, 500).T,
        lambda a: a.reshape(600, 500)[::3, 1::2],
        lambda a: a.reshape(10, 30, 1000).transpose(2, 0, 1),
        lambda a: a[::-7],
        lambda a: a.reshape(3, 100_000).T,  # rows longer than a pass: cut along them
    ],
    ids=["transposed", "sliced", "permuted", "reversed", "three columns"],
)
def test_non_contiguous_sources(layout, monkeypatch):
    monkeypatch.setattr(fp16, "CHUNK", 4096)  # several passes, none aligned with a row
    rng = np.random.default_rng(3)
    values = rng.integers(0, 1 << 32, 300_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    _assert_encodes_like_numpy(layout(values))


def test_counts_add_up_across_passes(monkeypatch):
    monkeypatch.setattr(fp16, "CHUNK", 7)  # a short last pass, counts from several passes
    clamped = [70000, -1e9, 65520]
    kept = [np.nextafter(np.float32(65520), np.float32(0)), np.inf, -np.inf, np.nan, 0.0, -0.0, 1.5]
    zeroed = [1e-10, -2e-8, 2.0**-25, 1e-45]
    smallest = [np.nextafter(np.float32(2.0**-25), np.float32(1))]  # rounds up to 2**-24, not zero
    special = np.array(clamped + kept + zeroed + smallest, np.float32)
    out = np.empty(special.size, np.float16)
    assert encode_f16(special, out) == (3, 4)
    assert out[:3].tolist() == [65504, -65504, 65504] and np.isnan(out[6])
    assert out[-1].view(np.uint16) == 1
    _assert_encodes_like_numpy(np.tile(special, 5))


def test_two_threads_encode_independently(monkeypatch):
    monkeypatch.setattr(fp16, "CHUNK", 4096)  # many passes each: the threads interleave
    blocks = [np.random.default_rng(seed).standard_normal(100_000).astype(np.float32) * 9e4 for seed in range(8)]

    def encode(block: np.ndarray) -> np.ndarray:
        out = np.empty(block.size, np.float16)
        encode_f16(block, out)
        return out.view(np.uint16)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(encode, blocks))
    for block, got in zip(blocks, results, strict=True):
        assert np.array_equal(got, _reference(block)[0])


def test_empty_and_scalar_sources():
    assert encode_f16(np.zeros((0, 3), np.float32).T, np.empty(0, np.float16)) == (0, 0)
    out = np.empty(1, np.float16)
    assert encode_f16(np.array(-7e4, np.float32), out) == (1, 0) and out[0] == -65504


def test_rejects_values_that_are_not_f32():
    with pytest.raises(TypeError, match="float64"):
        encode_f16(np.zeros(3), np.empty(3, np.float16))


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("IRCONV_FP16_EXHAUSTIVE"), reason="set IRCONV_FP16_EXHAUSTIVE=1")
def test_all_bit_patterns():
    block = np.arange(1 << 24, dtype=np.uint32)
    for start in range(0, 1 << 32, block.size):
        _assert_encodes_like_numpy((block + np.uint32(start)).view(np.float32))
