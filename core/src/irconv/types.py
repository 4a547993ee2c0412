"""Element types and shapes as the IR spells them.

A shape is a tuple of dimensions where ``None`` is a dynamic dimension; a shape of
``None`` means the rank itself is unknown.
"""

from __future__ import annotations

import enum

import numpy as np

Dim = int | None
Shape = tuple[Dim, ...]
MaybeShape = Shape | None
#: Bounds of a dimension that is dynamic within a range: (lower, upper or None for unbounded).
DimRange = tuple[int, int | None]


class ElementType(enum.Enum):
    """An IR element type; the value is the IR's lower-case spelling."""

    f64 = "f64"
    f32 = "f32"
    f16 = "f16"
    bf16 = "bf16"
    f8e5m2 = "f8e5m2"
    f8e4m3 = "f8e4m3"
    i64 = "i64"
    i32 = "i32"
    i16 = "i16"
    i8 = "i8"
    u64 = "u64"
    u32 = "u32"
    u16 = "u16"
    u8 = "u8"
    i4 = "i4"
    u4 = "u4"
    boolean = "boolean"
    dynamic = "dynamic"

    @property
    def precision(self) -> str:
        """The upper-case port precision, e.g. ``FP32`` or ``BOOL``."""
        return _PRECISIONS[self]

    @property
    def numpy(self) -> np.dtype:
        """The NumPy dtype holding values of this type.

        NumPy has no 8-bit floats: f8e5m2 and f8e4m3 values are held as their bit patterns in
        a one-byte structured dtype whose field names the type (see :mod:`irconv.float8`), so
        an f8 constant never passes for ``u8``; ``irconv.float8`` converts to and from f32.
        bf16 is ``ml_dtypes.bfloat16`` (the package ONNX and JAX use), imported when first
        asked for.
        """
        if self is ElementType.bf16:
            return _bfloat16()
        if self not in _TO_NUMPY:
            raise ValueError(f"element type {self.value} has no NumPy equivalent")
        return _TO_NUMPY[self]

    @property
    def is_float(self) -> bool:
        return self in (
            ElementType.f64,
            ElementType.f32,
            ElementType.f16,
            ElementType.bf16,
            ElementType.f8e5m2,
            ElementType.f8e4m3,
        )

    @property
    def max_finite(self) -> float:
        """The largest finite value of a float type, without asking for its NumPy dtype
        (bf16's would import ``ml_dtypes``): bf16 has f32's exponent and 8 significant bits."""
        if self is ElementType.bf16:
            return (2.0 - 2.0**-7) * 2.0**127
        if self.is_float8:
            from irconv.float8 import max_finite

            return max_finite(self)
        if not self.is_float:
            raise ValueError(f"element type {self.value} is not a float type")
        return float(np.finfo(_TO_NUMPY[self]).max)

    @property
    def is_float8(self) -> bool:
        return self in (ElementType.f8e5m2, ElementType.f8e4m3)

    @property
    def is_packed(self) -> bool:
        """Stored with two values per byte in the ``.bin`` (u4, i4)."""
        return self in (ElementType.u4, ElementType.i4)

    @property
    def is_integer(self) -> bool:
        return self.value[0] in "iu"

    @classmethod
    def from_numpy(cls, dtype: np.dtype | type) -> ElementType:
        dt = np.dtype(dtype)
        try:
            return _FROM_NUMPY[dt]
        except KeyError:
            if dt.name == "bfloat16":
                return cls.bf16
            raise ValueError(f"NumPy dtype {dt} has no IR element type") from None

    @classmethod
    def parse(cls, text: str) -> ElementType:
        """Accept the IR spelling (``f32``), a precision (``FP32``) or a NumPy name (``float32``)."""
        key = text.strip()
        if key in cls.__members__:
            return cls[key]
        for et, precision in _PRECISIONS.items():
            if precision == key.upper():
                return et
        try:
            return cls.from_numpy(np.dtype(key))
        except (TypeError, ValueError):
            raise ValueError(f"unknown element type {text!r}") from None


_TO_NUMPY: dict[ElementType, np.dtype] = {
    ElementType.f64: np.dtype(np.float64),
    ElementType.f32: np.dtype(np.float32),
    ElementType.f16: np.dtype(np.float16),
    ElementType.i64: np.dtype(np.int64),
    ElementType.i32: np.dtype(np.int32),
    ElementType.i16: np.dtype(np.int16),
    ElementType.i8: np.dtype(np.int8),
    ElementType.u64: np.dtype(np.uint64),
    ElementType.u32: np.dtype(np.uint32),
    ElementType.u16: np.dtype(np.uint16),
    ElementType.u8: np.dtype(np.uint8),
    ElementType.boolean: np.dtype(np.bool_),
    # bit patterns in a tagged byte (NumPy has no 8-bit float); irconv.float8 converts them
    ElementType.f8e5m2: np.dtype([("f8e5m2", np.uint8)]),
    ElementType.f8e4m3: np.dtype([("f8e4m3", np.uint8)]),
    # one value per byte in a tagged byte (NumPy has no 4-bit integer); packed on emit
    ElementType.u4: np.dtype([("u4", np.uint8)]),
    ElementType.i4: np.dtype([("i4", np.int8)]),
}
_FROM_NUMPY = {dt: et for et, dt in _TO_NUMPY.items()}


def _bfloat16() -> np.dtype:
    """bf16 values as ``ml_dtypes.bfloat16`` arrays (NumPy itself has no bf16)."""
    try:
        import ml_dtypes
    except ImportError:
        raise ValueError("element type bf16 needs the ml_dtypes package to be held in NumPy "
                         "(pip install ml_dtypes)") from None
    dtype: np.dtype = np.dtype(ml_dtypes.bfloat16)
    return dtype


_PRECISIONS = {
    ElementType.f64: "FP64",
    ElementType.f32: "FP32",
    ElementType.f16: "FP16",
    ElementType.bf16: "BF16",
    ElementType.f8e5m2: "F8E5M2",
    ElementType.f8e4m3: "F8E4M3",
    ElementType.i64: "I64",
    ElementType.i32: "I32",
    ElementType.i16: "I16",
    ElementType.i8: "I8",
    ElementType.u64: "U64",
    ElementType.u32: "U32",
    ElementType.u16: "U16",
    ElementType.u8: "U8",
    ElementType.u4: "U4",
    ElementType.i4: "I4",
    ElementType.boolean: "BOOL",
    ElementType.dynamic: "UNSPECIFIED",  # as the IR reader spells an unknown type
}


def is_static(shape: MaybeShape) -> bool:
    """True when the rank and every dimension are known."""
    return shape is not None and all(d is not None for d in shape)


def format_shape(shape: MaybeShape) -> str:
    """``[1,3,?,?]`` for display and error messages; ``[...]`` for dynamic rank."""
    if shape is None:
        return "[...]"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"
