"""Floats NumPy has no dtype for (bf16, f8e5m2, f8e4m3, f4e2m1, nf4) as NumPy arrays of their codes.

irconv holds such values in a structured dtype with one void field named after the type
(``ElementType.bf16.numpy`` is ``[("bf16", "V2")]``), so the bytes are the IR's bytes, a
narrow-float constant never passes for an integer one, and arithmetic or ``astype`` to a
number fails loudly instead of computing with bit patterns. This module converts between
those arrays and float32:

* ``bf16``: 1 sign, 8 exponent (bias 127), 7 mantissa bits: float32's upper half, with its
  infinities and NaNs; widening is exact (a 16-bit shift).
* ``f8e5m2``: 1 sign, 5 exponent (bias 15), 2 mantissa bits, IEEE-like: infinities and
  NaNs at the top exponent; largest finite value 57344 (ONNX ``FLOAT8E5M2``).
* ``f8e4m3``: 1 sign, 4 exponent (bias 7), 3 mantissa bits, no infinities, NaN only at
  ``S.1111.111``; largest finite value 448 (ONNX ``FLOAT8E4M3FN``).
* ``f4e2m1``: the OCP MX 4-bit float: 1 sign, 2 exponent (bias 1), 1 mantissa bit, no
  infinities or NaN; values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
* ``nf4``: not a float format but an index into 16 fixed values in [-1, 1] (the NormalFloat4
  quantiles OpenVINO's ``nf4`` decodes to, ``NF4_VALUES``).

The 4-bit types are held one code a byte; the IR stores them two a byte, the first in the
low nibble. irconv reads them (IRs that NNCF or optimum write) but never writes new ones.

Rounding is to nearest, ties to even; NaN stays NaN. Out of range values follow ONNX
``Cast``: with ``saturate`` they (and infinities) become the largest finite value of their
sign; without it they become infinity (bf16, f8e5m2) or NaN (f8e4m3, which has no infinity);
f4e2m1, which has neither, saturates (NaN too). nf4 takes the nearest of its 16 values.

Constant folding widens narrow-float inputs to f32 and rounds results back
(:func:`widen`, :func:`cast`), so an op's ``evaluate`` never sees their codes. Going the
other way, NumPy would cast numbers to the void field silently (zeros): make such arrays
with :func:`from_float`, :func:`cast` or :func:`as_array`, never ``astype``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from irconv.types import ElementType


@dataclass(frozen=True)
class _Format:
    exponent_bits: int
    mantissa_bits: int
    bias: int
    max_code: int  # bit pattern of +max_finite
    nan_code: int | None  # bit pattern of +NaN (quiet), None when the format has none
    inf_code: int | None  # bit pattern of +inf, None when the format has none

    @property
    def width(self) -> int:
        return 1 + self.exponent_bits + self.mantissa_bits

    @property
    def sign_bit(self) -> int:
        return 1 << (self.width - 1)

    @property
    def max_finite(self) -> float:
        exponent = (self.max_code >> self.mantissa_bits) - self.bias
        mantissa = self.max_code & ((1 << self.mantissa_bits) - 1)
        return float((1 + mantissa / (1 << self.mantissa_bits)) * 2.0**exponent)


_FORMATS = {
    ElementType.bf16: _Format(8, 7, 127, 0x7F7F, 0x7FC0, 0x7F80),
    ElementType.f8e5m2: _Format(5, 2, 15, 0x7B, 0x7F, 0x7C),
    ElementType.f8e4m3: _Format(4, 3, 7, 0x7E, 0x7F, None),
    ElementType.f4e2m1: _Format(2, 1, 1, 0x7, None, None),
}
#: What OpenVINO's nf4 codes 0..15 decode to (as f32; NNCF's NF4_QUANTILES hold the same).
NF4_VALUES = np.array(
    [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
     -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
     0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
     0.7229568362236023, 1.0],
    dtype=np.float32,
)
#: The element types this module handles (``ElementType.is_narrow_float``).
TYPES = frozenset((*_FORMATS, ElementType.nf4))


def _check(element_type: ElementType) -> None:
    if element_type not in TYPES:
        raise ValueError(
            f"element type {element_type.value} is not a narrow float (bf16, f8e5m2, f8e4m3, f4e2m1, nf4)"
        )


def _format(element_type: ElementType) -> _Format:
    _check(element_type)
    return _FORMATS[element_type]


def max_finite(element_type: ElementType) -> float:
    """The largest finite value of a narrow float type (57344 for f8e5m2, 448 for f8e4m3)."""
    if element_type is ElementType.nf4:
        return 1.0
    return _format(element_type).max_finite


def smallest_normal(element_type: ElementType) -> float:
    """The smallest positive normal value of a narrow float type (2**-126 for bf16)."""
    if element_type is ElementType.nf4:
        return float(NF4_VALUES[8])
    return 2.0 ** (1 - _format(element_type).bias)


@cache
def _decode_table(element_type: ElementType) -> np.ndarray:
    """f32 values of all codes of an 8- or 4-bit type."""
    if element_type is ElementType.nf4:
        return NF4_VALUES
    fmt = _format(element_type)
    codes = np.arange(1 << fmt.width, dtype=np.int64)
    sign = np.where(codes & fmt.sign_bit, -1.0, 1.0)
    exponent = (codes >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1)
    mantissa = codes & ((1 << fmt.mantissa_bits) - 1)
    scale = float(1 << fmt.mantissa_bits)
    normal = (1.0 + mantissa / scale) * np.exp2(exponent - fmt.bias)
    subnormal = (mantissa / scale) * np.exp2(1 - fmt.bias)
    values = sign * np.where(exponent == 0, subnormal, normal)
    magnitude = codes & (fmt.sign_bit - 1)
    if fmt.inf_code is not None:
        values[magnitude == fmt.inf_code] = sign[magnitude == fmt.inf_code] * np.inf
        values[magnitude > fmt.inf_code] = np.nan
    elif fmt.nan_code is not None:
        values[magnitude == fmt.nan_code] = np.nan
    return np.asarray(values, dtype=np.float32)


def bits(array: np.ndarray) -> np.ndarray:
    """The bit patterns (uint8 or uint16) of a narrow float array, as a view."""
    array = np.asarray(array)
    if array.dtype.itemsize not in (1, 2):
        raise ValueError(f"dtype {array.dtype} is not an 8- or 16-bit type")
    return array.view(np.dtype(f"u{array.dtype.itemsize}"))


def from_bits(codes: Any, element_type: ElementType) -> np.ndarray:
    """A narrow float array (``element_type.numpy``) holding the given bit patterns, as a view."""
    _check(element_type)
    array = np.asarray(codes)
    unsigned = np.dtype(f"u{element_type.numpy.itemsize}")
    if array.dtype != unsigned:
        array = array.astype(unsigned)
    return array.view(element_type.numpy)


def element_type_of(array: Any) -> ElementType | None:
    """The narrow float type of an array of irconv's narrow float dtypes, else None."""
    dtype = np.asarray(array).dtype if not isinstance(array, np.dtype) else array
    names = dtype.names
    if names is None or len(names) != 1:
        return None
    et = ElementType.__members__.get(names[0])
    return et if et in TYPES and dtype == et.numpy else None


def is_narrow_float_array(array: Any) -> bool:
    return isinstance(array, np.ndarray) and element_type_of(array) is not None


def to_float32(array: np.ndarray, element_type: ElementType | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Exact float32 values of a narrow float array (or of bit patterns with ``element_type``),
    written into ``out`` (float32, the same shape, any layout) when given."""
    element_type = element_type or element_type_of(array)
    if element_type is None:
        raise ValueError(f"dtype {np.asarray(array).dtype} is not a narrow float")
    _check(element_type)
    codes = bits(array)
    if element_type is ElementType.bf16:  # float32's upper half: one pass, no temporary
        target = np.empty(codes.shape, np.float32) if out is None else out
        np.left_shift(codes, 16, out=target.view(np.uint32), dtype=np.uint32)
        return target
    decoded: np.ndarray = _decode_table(element_type)[codes]  # NumPy types fancy indexing as Any
    if out is None:
        return decoded
    np.copyto(out, decoded)
    return out


def widen(array: Any) -> Any:
    """f32 values for a narrow float array; anything else as it is."""
    return to_float32(array) if is_narrow_float_array(array) else array


def widen_all(values: Sequence[Any]) -> list[Any]:
    return [widen(v) for v in values]


def cast(value: Any, element_type: ElementType) -> np.ndarray:
    """``value`` as an array of ``element_type``'s dtype: numbers round into a narrow float
    type as Convert does (no saturation), other types take NumPy's ``astype``."""
    array = np.asarray(value)
    if element_type in TYPES:
        if element_type_of(array) is element_type:
            return array
        return from_float(widen(array), element_type, saturate=False)
    widened: np.ndarray = widen(array)
    return widened.astype(element_type.numpy, copy=False)


def as_array(value: Any, dtype: Any = None) -> np.ndarray:
    """``np.asarray(value, dtype)``, except that numbers given a narrow float dtype are rounded
    into it (NumPy would cast them to its void bit patterns)."""
    if dtype is not None:
        element_type = element_type_of(np.dtype(dtype))
        if element_type is not None:
            return cast(value, element_type)
    return np.asarray(value, dtype=dtype)


def from_float(values: Any, element_type: ElementType, saturate: bool = True) -> np.ndarray:
    """Round float values to ``element_type`` (nearest, ties to even); see the module docs.
    nf4 takes the nearest of its values (the lower one on a tie)."""
    x = np.asarray(values)
    if element_type is ElementType.nf4:
        return from_bits(_nearest(x.astype(np.float64), NF4_VALUES.astype(np.float64)), element_type)
    fmt = _format(element_type)
    if fmt.width == 16 and x.dtype in (np.float32, np.float16):  # bf16 from f32 bits, exactly
        codes = _bf16_from_float32(x.astype(np.float32, copy=False))
        if saturate:
            magnitude = codes & 0x7FFF
            codes = np.where(magnitude == fmt.inf_code, (codes & 0x8000) | fmt.max_code, codes)
        return from_bits(codes, element_type)
    return from_bits(_round(x.astype(np.float64), fmt, saturate), element_type)


def _nearest(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Index of the nearest value of an ascending ``table`` (NaN to the one nearest 0)."""
    x = np.where(np.isnan(x), 0.0, x)
    upper = np.clip(np.searchsorted(table, x), 1, table.size - 1)
    lower = upper - 1
    return np.where(x - table[lower] <= table[upper] - x, lower, upper).astype(np.uint8)


def _bf16_from_float32(x: np.ndarray) -> np.ndarray:
    """bf16 codes of f32 values: the upper half, rounded to nearest even by the lower one (a
    carry into the exponent is the right result, up to infinity); NaNs stay quiet NaNs."""
    u = x.view(np.uint32)
    rounded = (u + (0x7FFF + ((u >> 16) & 1))) >> 16
    nan = np.isnan(x)
    return np.where(nan, (u >> 16) | 0x0040, rounded).astype(np.uint16)


def _round(x: np.ndarray, fmt: _Format, saturate: bool) -> np.ndarray:
    """Codes of float64 values in ``fmt`` (exact: every step below is exact in float64)."""
    negative = np.signbit(x)
    a = np.abs(x)
    finite = np.isfinite(a)
    safe = np.where(finite & (a > 0), a, 1.0)
    min_exponent = 1 - fmt.bias
    # the binade of each value (never below the subnormal one) sets its rounding quantum
    _, k = np.frexp(safe)
    exponent = np.maximum(k - 1, min_exponent)
    quantum = np.exp2(exponent - fmt.mantissa_bits)
    rounded = np.round(safe / quantum) * quantum  # np.round: ties to even
    rounded = np.where(finite & (a > 0), rounded, 0.0)
    # encode the rounded magnitude
    _, k = np.frexp(np.where(rounded > 0, rounded, 1.0))
    e = k - 1
    subnormal = e < min_exponent
    frac = np.where(
        subnormal,
        rounded / np.exp2(min_exponent - fmt.mantissa_bits),
        (rounded / np.exp2(e) - 1.0) * (1 << fmt.mantissa_bits),
    )
    biased = np.where(subnormal, 0, e + fmt.bias)
    code = (biased.astype(np.int64) << fmt.mantissa_bits) | np.rint(frac).astype(np.int64)
    code = np.where(rounded == 0, 0, code)
    overflow = ~finite | (rounded > fmt.max_finite)
    overflow_code = next((c for c in (fmt.inf_code, fmt.nan_code) if c is not None), fmt.max_code)
    big = fmt.max_code if saturate else overflow_code
    code = np.where(overflow & ~np.isnan(x), big, code)
    code = np.where(np.isnan(x), fmt.max_code if fmt.nan_code is None else fmt.nan_code, code)
    return code | np.where(negative, fmt.sign_bit, 0)
