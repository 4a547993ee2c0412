"""What every extractor needs beyond its own op: constants, axes, ranks, broadcasting.

These are the shared forms; a front end adds to them here rather than growing its own copy.
Helpers that build graph pieces out of opset ops (ShapeOf, Range, ...) live with those ops,
in ``irconv_opset.build``, and shape broadcasting in ``irconv_opset.shapes``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from irconv.errors import ConversionError
from irconv.types import ElementType

if TYPE_CHECKING:
    from irconv.contract.context import ExtractContext
    from irconv.graph import OutPort


# ----------------------------------------------------------------------------- constants
def i64(ctx: ExtractContext, values: Any, suffix: str = "const") -> OutPort:
    """An i64 constant: a scalar stays 0-d, a sequence is 1-D (shapes, axes, indices)."""
    return ctx.const(np.asarray(values, dtype=np.int64), suffix=suffix)


def i32(ctx: ExtractContext, values: Any, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(values, dtype=np.int32), suffix=suffix)


def f32(ctx: ExtractContext, values: Any, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(values, dtype=np.float32), suffix=suffix)


def typed(ctx: ExtractContext, values: Any, element_type: ElementType, suffix: str = "const") -> OutPort:
    """A constant of ``element_type`` (narrow floats and unknown types fall back to f32: NumPy
    has no bf16 or f8 arithmetic, and a Convert after it is the caller's choice)."""
    return ctx.const(np.asarray(values, dtype=numpy_dtype(element_type)), suffix=suffix)


def const_like(ctx: ExtractContext, values: Any, like: OutPort, suffix: str = "const") -> OutPort:
    """A constant of ``like``'s element type, for arithmetic with that tensor (f32 when the
    type is unknown or a narrow float; a boolean tensor keeps boolean)."""
    return typed(ctx, values, like.data.element_type, suffix)


def numpy_dtype(element_type: ElementType) -> np.dtype[Any]:
    """The NumPy dtype for constants of ``element_type``; f32 for dynamic and narrow floats."""
    if element_type is ElementType.dynamic or element_type.is_narrow_float:
        return np.dtype(np.float32)
    return np.dtype(element_type.numpy)


def input_constant(ctx: ExtractContext, idx: int, what: str) -> np.ndarray:
    """Input ``idx``'s value, which must be known when the model is converted (an axis, a
    count): otherwise one error naming the node and ``what`` the input is."""
    value = ctx.input_value(idx)
    if value is None:
        raise ConversionError(f"{ctx.where()}: {what} (input {idx}) must be a constant")
    return value


def input_scalar(ctx: ExtractContext, idx: int, what: str) -> np.generic:
    """Input ``idx``'s one value (an axis, a count, a bound): a constant of one element, of
    any rank, else one error naming the node, ``what`` the input is and the shape it has."""
    value = input_constant(ctx, idx, what)
    if value.size != 1:
        raise ConversionError(f"{ctx.where()}: {what} (input {idx}) must be one value, got shape {list(value.shape)}")
    found: np.generic = value.reshape(-1)[0]
    return found


def input_vector(ctx: ExtractContext, idx: int, what: str) -> np.ndarray | None:
    """Input ``idx``'s value as a 1-D array (pads, axes, a shape), or None when it is not a
    constant; a constant of another rank is one error naming the node and ``what`` it is."""
    value = ctx.input_value(idx)
    if value is not None and value.ndim != 1:
        raise ConversionError(f"{ctx.where()}: {what} (input {idx}) must be 1-D, got shape {list(value.shape)}")
    return value


# ----------------------------------------------------------------------------- ranks, axes
def require_rank(ctx: ExtractContext, idx: int = 0) -> int:
    """The rank of input ``idx``, which must be known (an error asking for a shape if not)."""
    rank = ctx.input_rank(idx)
    if rank is None:
        raise ConversionError(
            f"{ctx.where()}: the rank of input {idx} is unknown; "
            "give the model input a shape with --input name[d0,d1,...]"
        )
    return rank


def normalize_axis(ctx: ExtractContext, axis: int, rank: int) -> int:
    """``axis`` (negative counts from the end) as 0..rank-1; out of range is an error."""
    value = axis + rank if axis < 0 else axis
    if not 0 <= value < rank:
        raise ConversionError(f"{ctx.where()}: axis {axis} is out of range for rank {rank}")
    return value


def normalize_axes(ctx: ExtractContext, axes: Iterable[int], rank: int) -> list[int]:
    """Each of ``axes`` normalised; a repeated axis is an error."""
    found = [normalize_axis(ctx, int(a), rank) for a in axes]
    if len(set(found)) != len(found):
        raise ConversionError(f"{ctx.where()}: axes {list(axes)} repeat an axis")
    return found


# ----------------------------------------------------------------------------- broadcasting
def per_axis(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """``values`` (covering dims ``axis..axis+ndim-1``) reshaped to broadcast against a
    rank-``rank`` tensor: a per-channel vector at ``axis`` becomes ``[C, 1, 1]``."""
    trailing = rank - axis - values.ndim
    if trailing < 0:
        raise ValueError(f"a {values.ndim}-D parameter does not fit a rank-{rank} input at axis {axis}")
    return values.reshape(values.shape + (1,) * trailing)
