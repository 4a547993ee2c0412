"""ConvertPromoteTypes-14: convert two inputs to one common element type.

The rules (as the runtime applies them): booleans give way to anything; two integers of
the same signedness, or two floats, promote to the wider one; a signed integer wider than
an unsigned one absorbs it; an integer meets a float safely only when the float is at
least twice as wide. Unsafe pairs are an error unless ``promote_unsafe``, which then
widens to a signed integer of twice the width (``u64`` with a signed integer becomes
``u64_integer_promotion_target``), or takes the float (``f16`` with ``bf16`` gives ``f32``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv import narrow_float
from irconv.errors import ConversionError
from irconv.ops import Op, attr
from irconv.types import ElementType

from irconv_opset.ops._attrs import NUMERIC_TYPES
from irconv_opset.shapes import in_shape, in_type, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


def _bits(et: ElementType) -> int:
    if et.is_float8:
        return 8
    if et.is_packed:
        return 4
    return 1 if et is ElementType.boolean else int(et.value.lstrip("bfiu"))


def _kind(et: ElementType) -> str:
    """``b`` boolean, ``u`` unsigned, ``i`` signed, ``f`` floating."""
    if et is ElementType.boolean:
        return "b"
    return "f" if et.is_float else et.value[0]


def _signed(bits: int) -> ElementType:
    return ElementType(f"i{bits}")


def promote(a: ElementType, b: ElementType, unsafe: bool, u64_target: ElementType) -> ElementType:
    """The common type of ``a`` and ``b``; ConversionError for an unsafe pair when not allowed."""
    if a is ElementType.dynamic or b is ElementType.dynamic:
        return ElementType.dynamic
    if a == b:
        return a
    ka, kb = _kind(a), _kind(b)
    if "b" in (ka, kb):
        return b if ka == "b" else a
    wider = a if _bits(a) > _bits(b) else b
    if ka == kb and ka != "f":
        return wider
    if ka == kb == "f":
        if _bits(a) == _bits(b):  # f16 with bf16
            return _unsafe(a, b, unsafe, ElementType.f32)
        return wider
    if "f" in (ka, kb):
        real, integer = (a, b) if ka == "f" else (b, a)
        if _bits(real) >= 2 * _bits(integer):
            return real
        return _unsafe(a, b, unsafe, real)
    signed, unsigned = (a, b) if ka == "i" else (b, a)
    if _bits(signed) > _bits(unsigned):
        return signed
    if _bits(unsigned) == 64:
        return _unsafe(a, b, unsafe, u64_target)
    return _unsafe(a, b, unsafe, _signed(2 * max(_bits(signed), _bits(unsigned))))


def _unsafe(a: ElementType, b: ElementType, unsafe: bool, result: ElementType) -> ElementType:
    if not unsafe:
        raise ConversionError(
            f"ConvertPromoteTypes: {a.value} and {b.value} cannot be promoted safely; set promote_unsafe"
        )
    return result


@dataclass(eq=False)
class ConvertPromoteTypes(Op):
    """Inputs a and b; outputs both converted to their common type."""

    type = "ConvertPromoteTypes"
    version = 14
    arity = (2, 2)
    outputs = 2

    promote_unsafe: bool = attr(False)
    pytorch_scalar_promotion: bool = attr(False)
    u64_integer_promotion_target: ElementType = attr(ElementType.f32, choices=NUMERIC_TYPES)

    def common_type(self, a: ElementType, b: ElementType, rank_a: int | None, rank_b: int | None) -> ElementType:
        if self.pytorch_scalar_promotion and (rank_a == 0) != (rank_b == 0):
            # a scalar of the same kind as the tensor takes the tensor's type
            scalar, tensor = (a, b) if rank_a == 0 else (b, a)
            if _kind(scalar) == _kind(tensor) or (_kind(scalar) in "iu" and _kind(tensor) in "iu"):
                return tensor
        return promote(a, b, self.promote_unsafe, self.u64_integer_promotion_target)

    def infer(self, node: Node) -> None:
        shapes = [in_shape(node, 0), in_shape(node, 1)]
        ranks = [None if s is None else len(s) for s in shapes]
        et = self.common_type(in_type(node, 0), in_type(node, 1), ranks[0], ranks[1])
        set_output(node, 0, shapes[0], et)
        set_output(node, 1, shapes[1], et)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray] | None:
        a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
        et = self.common_type(ElementType.from_numpy(a.dtype), ElementType.from_numpy(b.dtype), a.ndim, b.ndim)
        return [narrow_float.cast(a, et), narrow_float.cast(b, et)]


OPS: tuple[type[Op], ...] = (ConvertPromoteTypes,)
