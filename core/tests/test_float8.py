"""irconv.float8: f32 <-> f8e5m2 / f8e4m3 (ONNX FLOAT8E5M2 / FLOAT8E4M3FN) conversions."""

from __future__ import annotations

import numpy as np
import pytest
from irconv import float8
from irconv.types import ElementType

E5M2, E4M3 = ElementType.f8e5m2, ElementType.f8e4m3


def _codes(values, et, saturate=True):  # type: ignore[no-untyped-def]
    return float8.bits(float8.from_float(np.asarray(values, np.float32), et, saturate)).tolist()


def test_element_types_are_distinct_from_u8() -> None:
    for et in (E5M2, E4M3):
        assert et.is_float and et.is_float8 and not et.is_integer
        assert et.numpy.itemsize == 1
        assert et.numpy != np.dtype(np.uint8)
        assert ElementType.from_numpy(et.numpy) is et
        assert ElementType.parse(et.precision) is et
    assert ElementType.from_numpy(np.uint8) is ElementType.u8
    assert E5M2.precision == "F8E5M2" and E4M3.precision == "F8E4M3"


@pytest.mark.parametrize(("et", "top", "top_code"), [(E5M2, 57344.0, 0x7B), (E4M3, 448.0, 0x7E)])
def test_zero_and_largest_finite(et, top, top_code) -> None:  # type: ignore[no-untyped-def]
    assert float8.max_finite(et) == top
    assert _codes([0.0, -0.0, top, -top], et) == [0x00, 0x80, top_code, 0x80 | top_code]
    back = float8.to_float32(float8.from_float([0.0, -0.0, top, -top], et))
    assert back.dtype == np.float32
    assert back.tolist() == [0.0, 0.0, top, -top]
    assert np.signbit(back[1])


def test_rounding_is_to_nearest_even() -> None:
    # e5m2 around 1: step 0.25. 1.125 is a tie between 1.0 (even) and 1.25 -> 1.0;
    # 1.375 ties between 1.25 and 1.5 (even) -> 1.5; 1.126 is above the tie -> 1.25
    got = float8.to_float32(float8.from_float([1.125, 1.375, 1.126, -1.125], E5M2)).tolist()
    assert got == [1.0, 1.5, 1.25, -1.0]
    # e4m3 around 1: step 0.125. 1.0625 -> 1.0, 1.1875 -> 1.25
    assert float8.to_float32(float8.from_float([1.0625, 1.1875], E4M3)).tolist() == [1.0, 1.25]
    # subnormals: e5m2's smallest is 2**-16; half of it is a tie with 0 -> 0
    assert float8.to_float32(float8.from_float([2.0**-16, 2.0**-17, 1.5 * 2.0**-16], E5M2)).tolist() == [
        2.0**-16,
        0.0,
        2.0**-15,
    ]


def test_overflow_with_saturation_clamps_to_the_largest_finite_value() -> None:
    assert _codes([60000.0, 61440.0, 1e9, np.inf, -np.inf], E5M2) == [0x7B, 0x7B, 0x7B, 0x7B, 0xFB]
    assert _codes([460.0, 500.0, np.inf, -1e9], E4M3) == [0x7E, 0x7E, 0x7E, 0xFE]


def test_overflow_without_saturation() -> None:
    # e5m2 has infinities; 60000 still rounds down to 57344, 61440 (the tie) rounds to inf
    got = float8.to_float32(float8.from_float([60000.0, 61440.0, 1e9, np.inf, -np.inf], E5M2, saturate=False))
    assert got.tolist() == [57344.0, np.inf, np.inf, np.inf, -np.inf]
    # e4m3 (FN) has none: overflow is NaN; 464 ties between 448 (even) and the NaN pattern -> 448
    got = float8.to_float32(float8.from_float([464.0, 470.0, np.inf], E4M3, saturate=False))
    assert got[0] == 448.0 and np.isnan(got[1:]).all()


@pytest.mark.parametrize("et", [E5M2, E4M3], ids=lambda et: et.value)
@pytest.mark.parametrize("saturate", [True, False])
def test_nan_stays_nan(et, saturate) -> None:  # type: ignore[no-untyped-def]
    assert np.isnan(float8.to_float32(float8.from_float([np.nan], et, saturate))).all()


@pytest.mark.parametrize("et", [E5M2, E4M3], ids=lambda et: et.value)
def test_every_code_round_trips(et) -> None:  # type: ignore[no-untyped-def]
    codes = np.arange(256, dtype=np.uint8)
    values = float8.to_float32(float8.from_bits(codes, et))
    again = float8.bits(float8.from_float(values, et, saturate=False))
    finite_or_inf = ~np.isnan(values)
    np.testing.assert_array_equal(again[finite_or_inf], codes[finite_or_inf])
    assert np.isnan(values).sum() == (6 if et is E5M2 else 2)


def test_bit_patterns_decode_like_the_formats() -> None:
    assert float8.to_float32(float8.from_bits([0x3C, 0x01, 0x7C, 0x04], E5M2)).tolist() == [
        1.0,
        2.0**-16,
        np.inf,
        2.0**-14,
    ]
    assert float8.to_float32(float8.from_bits([0x38, 0x01, 0x08], E4M3)).tolist() == [1.0, 2.0**-9, 2.0**-6]


def test_not_a_float8_type_is_refused() -> None:
    with pytest.raises(ValueError, match="not an 8-bit float"):
        float8.from_float([1.0], ElementType.f16)
    with pytest.raises(ValueError, match="not an 8-bit float"):
        float8.to_float32(np.zeros(2, np.uint8))


def test_largest_finite_values_follow_the_bit_patterns() -> None:
    """The largest finite value of each float type, from its top finite bit pattern."""
    bf16_top = np.array([0x7F7F0000], np.uint32).view(np.float32)[0]  # bf16 is f32's upper half
    assert ElementType.bf16.max_finite == float(bf16_top)
    assert ElementType.f16.max_finite == float(np.array([0x7BFF], np.uint16).view(np.float16)[0])
    assert ElementType.f32.max_finite == float(np.array([0x7F7FFFFF], np.uint32).view(np.float32)[0])
    assert ElementType.f8e5m2.max_finite == float(float8.to_float32(float8.from_bits([0x7B], E5M2))[0])
    assert ElementType.f8e4m3.max_finite == float(float8.to_float32(float8.from_bits([0x7E], E4M3))[0])
    with pytest.raises(ValueError, match="not a float type"):
        ElementType.i8.max_finite
