"""The int8 kernels of LiteRT's element-wise functions, as tables over the input's integers.

Each kernel maps an array of input integers (every value of the input's type) to the output
integers the LiteRT kernel computes for them; ``extractors.integer.table`` stores that as
a constant the IR reads with Gather. LOGISTIC is a table of the function in float, rounded
half to even (as XNNPACK builds it); HARD_SWISH is TFLite's 16-bit fixed-point kernel
(``reference_ops::HardSwish``), whose rounding differs from the float function's at
near-halves.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class GridLike(Protocol):
    """A per-tensor grid (``extractors.integer.Grid``)."""

    @property
    def scale(self) -> np.float32: ...
    @property
    def zero(self) -> int: ...
    @property
    def low(self) -> int: ...
    @property
    def high(self) -> int: ...


def sigmoid(q: np.ndarray, data: GridLike, out: GridLike) -> np.ndarray:
    """The sigmoid of each dequantized input (in double, as XNNPACK's reference), rounded."""
    x = (q - data.zero).astype(np.float32) * data.scale
    e = np.exp(x.astype(np.float64))
    y = (e / (1 + e)).astype(np.float32)
    q_out: np.ndarray = np.clip(np.rint(y * (np.float32(1) / out.scale) + np.float32(out.zero)), out.low, out.high)
    return q_out.astype(np.int64)


# ---------------------------------------------------------------- TFLite's fixed point
def _quantize_multiplier(multiplier: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: ``multiplier = q * 2^(shift - 31)``, q in [2^30, 2^31)."""
    if multiplier == 0:
        return 0, 0
    fraction, shift = np.frexp(multiplier)
    fixed = int(np.sign(fraction) * np.floor(abs(fraction) * 2.0**31 + 0.5))  # std::round
    if fixed == 1 << 31:
        fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return fixed, int(shift)


def _to_int16_multiplier(fixed: int) -> int:
    """TFLite's DownScaleInt32ToInt16Multiplier."""
    if fixed >= (1 << 31) - 1 - (1 << 15):
        return (1 << 15) - 1
    return (fixed + (1 << 15)) >> 16


def _truncating_divide(a: np.ndarray, b: int) -> np.ndarray:
    """C integer division (towards zero)."""
    result: np.ndarray = np.sign(a) * (np.abs(a) // b)
    return result


def _rounding_doubling_high_mul(a: np.ndarray, b: int) -> np.ndarray:
    """gemmlowp's SaturatingRoundingDoublingHighMul on int16."""
    product = a * b
    nudge = np.where(product >= 0, 1 << 14, 1 - (1 << 14))
    result: np.ndarray = np.where((a == -32768) & (b == -32768), 32767, _truncating_divide(product + nudge, 1 << 15))
    return result


def _doubling_high_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TFLite's SaturatingDoublingHighMul on int16 (rounds towards zero)."""
    result: np.ndarray = np.where((a == -32768) & (b == -32768), 32767, _truncating_divide(a * b, 1 << 15))
    return result


def _int16(value: int) -> int:
    """``value`` wrapped to int16, as a C cast does."""
    value &= 0xFFFF
    return value - 0x10000 if value >= 0x8000 else value


def _rounding_divide_by_pot(x: np.ndarray, exponent: int) -> np.ndarray:
    """gemmlowp's RoundingDivideByPOT on int16 (a right shift rounding half away from
    zero). Its mask is an int16 too: from a shift of 16 on it wraps to -1, and the
    "rounding" then moves every value by one towards its sign, as the kernel does."""
    mask = _int16((1 << exponent) - 1)
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    result: np.ndarray = (x >> exponent) + (remainder > threshold)
    return result


def _saturating_left_shift(x: np.ndarray, amount: int) -> np.ndarray:
    result: np.ndarray = np.clip(x * (1 << amount), -32768, 32767)
    return result


def hard_swish(q: np.ndarray, data: GridLike, out: GridLike) -> np.ndarray:
    """TFLite's int8 HARD_SWISH: x * relu6(x + 3) / 6 in 16-bit fixed point."""
    hires_input_scale = np.float32(1.0 / 128.0) * np.float32(data.scale)
    output_fixed, output_exponent = _quantize_multiplier(float(hires_input_scale / np.float32(out.scale)))
    reluish_fixed, reluish_exponent = _quantize_multiplier(float(hires_input_scale / np.float32(3.0 / 32768.0)))
    output_multiplier, reluish_multiplier = _to_int16_multiplier(output_fixed), _to_int16_multiplier(reluish_fixed)
    if output_exponent > 0:
        raise ValueError("HARD_SWISH: the output scale is below the input's / 128")
    value = (q - data.zero) * (1 << 7)
    on_output_scale = _rounding_doubling_high_mul(value, output_multiplier)
    reluish = value
    if reluish_exponent > 0:
        reluish = _saturating_left_shift(reluish, reluish_exponent - 1)
    reluish = _rounding_doubling_high_mul(reluish, reluish_multiplier)
    if reluish_exponent > 0:
        reluish = _saturating_left_shift(reluish, 1)
    if reluish_exponent < 0:
        reluish = _rounding_divide_by_pot(reluish, -reluish_exponent)
    reluish = (reluish + (1 << 15)) >> 1
    result = _rounding_divide_by_pot(_doubling_high_mul(reluish, on_output_scale), -output_exponent)
    q_out: np.ndarray = np.clip(result + out.zero, out.low, out.high)
    return q_out.astype(np.int64)
