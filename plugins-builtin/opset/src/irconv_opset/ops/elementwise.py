"""Binary elementwise ops: arithmetic, comparison, logical and bitwise, with ``auto_broadcast``.

Each op names its NumPy kernel; the base class does broadcasting, types and folding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from irconv.errors import ConversionError
from irconv.ops import Op, Trait, attr
from irconv.types import ElementType

from irconv_opset.rules import require_at_most
from irconv_opset.shapes import auto_broadcast, in_shape, in_type, set_output

if TYPE_CHECKING:
    from irconv.graph import Node

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: The IR spells ``auto_broadcast="pdpd"`` without an axis; the runtime then aligns the
#: second input with the first from axis 0.
PDPD_AXIS = 0


def _align_pdpd(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
    """Reshape ``b`` so NumPy broadcasting matches PDPD alignment at ``axis``."""
    if axis == -1:
        axis = a.ndim - b.ndim
    trailing = a.ndim - axis - b.ndim
    return b.reshape(b.shape + (1,) * trailing)


@dataclass(eq=False)
class BinaryElementwise(Op):
    """Base of ops computing ``kernel(a, b)`` with broadcasting."""

    version = 1
    arity = (2, 2)
    traits = frozenset({Trait.ELEMENTWISE})
    #: True for comparison and logical ops whose output is boolean.
    boolean_output: ClassVar[bool] = False

    auto_broadcast: str = attr("numpy", choices=("none", "numpy", "pdpd"))

    def has(self, trait: Trait) -> bool:
        # PDPD broadcasting aligns the second input from an axis, not NumPy-style.
        if trait is Trait.ELEMENTWISE and self.auto_broadcast == "pdpd":
            return False
        return super().has(trait)

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        first, second = in_type(node, 0), in_type(node, 1)
        if ElementType.dynamic not in (first, second) and first is not second:
            # the runtime refuses such a node when it reads the IR; say so at conversion
            raise ConversionError(
                f"{self.type} needs both inputs of one element type, got {first.value} and {second.value}"
            )
        shape = auto_broadcast(self.auto_broadcast, in_shape(node, 0), in_shape(node, 1), PDPD_AXIS)
        out_type = ElementType.boolean if self.boolean_output else in_type(node, 0)
        if out_type is ElementType.dynamic:
            out_type = in_type(node, 1)
        set_output(node, 0, shape, out_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
        if self.auto_broadcast == "pdpd":
            b = _align_pdpd(a, b, PDPD_AXIS)
        with np.errstate(all="ignore"):
            out = np.asarray(self.kernel(a, b))
        if not self.boolean_output:
            out = out.astype(a.dtype, copy=False)
        return [out]


@dataclass(eq=False)
class Add(BinaryElementwise):
    type = "Add"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b


@dataclass(eq=False)
class Subtract(BinaryElementwise):
    type = "Subtract"

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a - b


@dataclass(eq=False)
class Multiply(BinaryElementwise):
    type = "Multiply"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a * b


@dataclass(eq=False)
class Divide(BinaryElementwise):
    """``m_pythondiv``: integer division floors (Python) instead of truncating (C)."""

    type = "Divide"

    m_pythondiv: bool = attr(True)

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if np.issubdtype(a.dtype, np.integer):
            if self.m_pythondiv:
                return np.floor_divide(a, b)
            return np.trunc(np.true_divide(a, b)).astype(a.dtype)
        return a / b


@dataclass(eq=False)
class Power(BinaryElementwise):
    type = "Power"

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if np.issubdtype(a.dtype, np.integer):
            return np.power(a.astype(np.float64), b).astype(a.dtype)
        return np.power(a, b.astype(a.dtype))


@dataclass(eq=False)
class Maximum(BinaryElementwise):
    type = "Maximum"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.maximum(a, b)


@dataclass(eq=False)
class Minimum(BinaryElementwise):
    type = "Minimum"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.minimum(a, b)


@dataclass(eq=False)
class SquaredDifference(BinaryElementwise):
    type = "SquaredDifference"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a - b) ** 2


@dataclass(eq=False)
class FloorMod(BinaryElementwise):
    """Remainder with the sign of the divisor (Python ``%``)."""

    type = "FloorMod"

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.mod(a, b)


@dataclass(eq=False)
class Mod(BinaryElementwise):
    """Remainder with the sign of the dividend (C ``fmod``)."""

    type = "Mod"

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.fmod(a, b)


@dataclass(eq=False)
class Equal(BinaryElementwise):
    type = "Equal"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.equal(a, b)


@dataclass(eq=False)
class NotEqual(BinaryElementwise):
    type = "NotEqual"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.not_equal(a, b)


@dataclass(eq=False)
class Less(BinaryElementwise):
    type = "Less"
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.less(a, b)


@dataclass(eq=False)
class LessEqual(BinaryElementwise):
    type = "LessEqual"
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.less_equal(a, b)


@dataclass(eq=False)
class Greater(BinaryElementwise):
    type = "Greater"
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.greater(a, b)


@dataclass(eq=False)
class GreaterEqual(BinaryElementwise):
    type = "GreaterEqual"
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.greater_equal(a, b)


@dataclass(eq=False)
class LogicalAnd(BinaryElementwise):
    type = "LogicalAnd"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.logical_and(a, b)


@dataclass(eq=False)
class LogicalOr(BinaryElementwise):
    type = "LogicalOr"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.logical_or(a, b)


@dataclass(eq=False)
class LogicalXor(BinaryElementwise):
    type = "LogicalXor"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})
    boolean_output = True

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.logical_xor(a, b)


@dataclass(eq=False)
class BitwiseAnd(BinaryElementwise):
    type = "BitwiseAnd"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})
    version = 13

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bitwise_and(a, b)


@dataclass(eq=False)
class BitwiseOr(BinaryElementwise):
    type = "BitwiseOr"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})
    version = 13

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bitwise_or(a, b)


@dataclass(eq=False)
class BitwiseXor(BinaryElementwise):
    type = "BitwiseXor"
    traits = frozenset({Trait.ELEMENTWISE, Trait.COMMUTATIVE})
    version = 13

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bitwise_xor(a, b)


@dataclass(eq=False)
class BitwiseLeftShift(BinaryElementwise):
    type = "BitwiseLeftShift"
    version = 15

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.left_shift(a, b.astype(a.dtype))


@dataclass(eq=False)
class BitwiseRightShift(BinaryElementwise):
    type = "BitwiseRightShift"
    version = 15

    def kernel(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.right_shift(a, b.astype(a.dtype))


@dataclass(eq=False)
class LogicalNot(Op):
    type = "LogicalNot"
    traits = frozenset({Trait.ELEMENTWISE, Trait.LAYOUT_AGNOSTIC})
    version = 1
    arity = (1, 1)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), ElementType.boolean)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.logical_not(inputs[0])]


@dataclass(eq=False)
class BitwiseNot(Op):
    type = "BitwiseNot"
    traits = frozenset({Trait.ELEMENTWISE, Trait.LAYOUT_AGNOSTIC})
    version = 13
    arity = (1, 1)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        a = np.asarray(inputs[0])
        return [np.logical_not(a) if a.dtype == np.bool_ else np.invert(a)]


OPS: tuple[type[Op], ...] = (
    Add,
    Subtract,
    Multiply,
    Divide,
    Power,
    Maximum,
    Minimum,
    SquaredDifference,
    FloorMod,
    Mod,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    LogicalNot,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    BitwiseNot,
    BitwiseLeftShift,
    BitwiseRightShift,
)
