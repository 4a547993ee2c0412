"""8-bit floats (OpenVINO's f8e5m2 and f8e4m3) as NumPy arrays of their bit patterns.

NumPy has no 8-bit float, so irconv holds f8 values as one-byte structured arrays whose
single field names the type (``ElementType.f8e5m2.numpy``); the bytes are the IR's bytes.
This module converts between those arrays and float32:

* ``f8e5m2``: 1 sign, 5 exponent (bias 15), 2 mantissa bits, IEEE-like: infinities and
  NaNs at the top exponent; largest finite value 57344 (ONNX ``FLOAT8E5M2``).
* ``f8e4m3``: 1 sign, 4 exponent (bias 7), 3 mantissa bits, no infinities, NaN only at
  ``S.1111.111``; largest finite value 448 (ONNX ``FLOAT8E4M3FN``).

Rounding is to nearest, ties to even. Out of range values follow ONNX ``Cast``: with
``saturate`` they (and infinities) become the largest finite value of their sign; without
it they become infinity (f8e5m2) or NaN (f8e4m3, which has no infinity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from irconv.types import ElementType


@dataclass(frozen=True)
class _Format:
    exponent_bits: int
    mantissa_bits: int
    bias: int
    max_finite: float
    max_code: int  # bit pattern of +max_finite
    nan_code: int  # bit pattern of +NaN
    inf_code: int | None  # bit pattern of +inf, None when the format has none


_FORMATS = {
    ElementType.f8e5m2: _Format(5, 2, 15, 57344.0, 0x7B, 0x7F, 0x7C),
    ElementType.f8e4m3: _Format(4, 3, 7, 448.0, 0x7E, 0x7F, None),
}


def _format(element_type: ElementType) -> _Format:
    try:
        return _FORMATS[element_type]
    except KeyError:
        raise ValueError(f"element type {element_type.value} is not an 8-bit float") from None


def max_finite(element_type: ElementType) -> float:
    """The largest finite value of an 8-bit float type (57344 for f8e5m2, 448 for f8e4m3)."""
    return _format(element_type).max_finite


def _decode_table(fmt: _Format) -> np.ndarray:
    codes = np.arange(256, dtype=np.int64)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exponent = (codes >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1)
    mantissa = codes & ((1 << fmt.mantissa_bits) - 1)
    scale = float(1 << fmt.mantissa_bits)
    normal = (1.0 + mantissa / scale) * np.exp2(exponent - fmt.bias)
    subnormal = (mantissa / scale) * np.exp2(1 - fmt.bias)
    values = sign * np.where(exponent == 0, subnormal, normal)
    magnitude = codes & 0x7F
    if fmt.inf_code is not None:
        values[magnitude == fmt.inf_code] = sign[magnitude == fmt.inf_code] * np.inf
        values[magnitude > fmt.inf_code] = np.nan
    else:
        values[magnitude == fmt.nan_code] = np.nan
    return values.astype(np.float32)


_TABLES = {et: _decode_table(fmt) for et, fmt in _FORMATS.items()}


def bits(array: np.ndarray) -> np.ndarray:
    """The bit patterns (uint8) of an f8 array, as a view."""
    array = np.asarray(array)
    if array.dtype.itemsize != 1:
        raise ValueError(f"dtype {array.dtype} is not an 8-bit type")
    return array.view(np.uint8)


def from_bits(codes: Any, element_type: ElementType) -> np.ndarray:
    """An f8 array (``element_type.numpy``) holding the given uint8 bit patterns, as a view."""
    _format(element_type)
    codes = np.asarray(codes)
    if codes.dtype != np.uint8:
        codes = codes.astype(np.uint8)
    return codes.view(element_type.numpy)


def element_type_of(array: np.ndarray) -> ElementType | None:
    """The f8 type of an f8 array (irconv's own dtype or an ``ml_dtypes`` one), else None."""
    dtype = np.asarray(array).dtype
    if dtype.names is not None and len(dtype.names) == 1 and dtype.itemsize == 1:
        name = dtype.names[0]
    else:
        name = {"float8_e5m2": "f8e5m2", "float8_e4m3fn": "f8e4m3"}.get(dtype.name, "")
    return ElementType(name) if name in ("f8e5m2", "f8e4m3") else None


def to_float32(array: np.ndarray, element_type: ElementType | None = None) -> np.ndarray:
    """Exact float32 values of an f8 array (or of uint8 bit patterns with ``element_type``)."""
    element_type = element_type or element_type_of(array)
    if element_type is None:
        raise ValueError(f"dtype {np.asarray(array).dtype} is not an 8-bit float")
    _format(element_type)
    return _TABLES[element_type][bits(array)]


def from_float(values: Any, element_type: ElementType, saturate: bool = True) -> np.ndarray:
    """Round float values to ``element_type`` (nearest, ties to even); see the module docs."""
    fmt = _format(element_type)
    x = np.asarray(values, dtype=np.float64)
    negative = np.signbit(x)
    a = np.abs(x)
    finite = np.isfinite(a)
    safe = np.where(finite & (a > 0), a, 1.0)
    min_exponent = 1 - fmt.bias
    # the binade of each value (never below the subnormal one) sets its rounding quantum
    _, k = np.frexp(safe)
    exponent = np.maximum(k - 1, min_exponent)
    quantum = np.exp2(exponent - fmt.mantissa_bits)
    rounded = np.round(safe / quantum) * quantum  # np.round: ties to even; exact in float64
    rounded = np.where(finite & (a > 0), rounded, 0.0)
    # encode the rounded magnitude
    _, k = np.frexp(np.where(rounded > 0, rounded, 1.0))
    e = k - 1
    subnormal = e < min_exponent
    mantissa_scale = 1 << fmt.mantissa_bits
    frac = np.where(
        subnormal,
        rounded / np.exp2(min_exponent - fmt.mantissa_bits),
        (rounded / np.exp2(e) - 1.0) * mantissa_scale,
    )
    biased = np.where(subnormal, 0, e + fmt.bias)
    code = (biased.astype(np.int64) << fmt.mantissa_bits) | np.rint(frac).astype(np.int64)
    code = np.where(rounded == 0, 0, code)
    overflow = ~finite | (rounded > fmt.max_finite)
    overflow_code = fmt.inf_code if fmt.inf_code is not None else fmt.nan_code
    big = fmt.max_code if saturate else overflow_code
    code = np.where(overflow & ~np.isnan(x), big, code)
    code = np.where(np.isnan(x), fmt.nan_code, code)
    code = code | np.where(negative, 0x80, 0)
    return from_bits(code.astype(np.uint8), element_type)


def is_float8_array(array: Any) -> bool:
    return isinstance(array, np.ndarray) and element_type_of(array) is not None
