"""Reductions over the axes given by input 1, with ``keep_dims``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from irconv.ops import Op, Trait, attr
from irconv.types import ElementType, MaybeShape

from irconv_opset import symbol_rules
from irconv_opset.rules import require_at_most, require_integer, require_rank
from irconv_opset.shapes import dynamic_shape, in_shape, in_type, in_value, normalize_axes, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


def reduced_shape(shape: MaybeShape, axes: np.ndarray | None, keep_dims: bool) -> MaybeShape:
    """The output shape of a reduction; dynamic where the axes are not constant."""
    if shape is None:
        return None
    rank = len(shape)
    if axes is None:
        # Without the axes values only keep_dims fixes the rank (the runtime agrees:
        # repeated axes would make a count-based rank wrong).
        return dynamic_shape(rank) if keep_dims else None
    reduced = set(normalize_axes(np.asarray(axes).reshape(-1), rank))
    if keep_dims:
        return tuple(1 if i in reduced else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in reduced)


@dataclass(eq=False)
class Reduction(Op):
    """Base: inputs data and axes; ``kernel(x, axes)`` reduces with keepdims."""
    traits = frozenset({Trait.REDUCTION})

    version = 1
    arity = (2, 2)
    boolean_output: ClassVar[bool] = False

    keep_dims: bool = attr(False)

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        require_integer(node, 1, "axes")
        require_rank(node, 1, "axes", 0, 1)
        shape = reduced_shape(in_shape(node, 0), in_value(node, 1), self.keep_dims)
        set_output(node, 0, shape, ElementType.boolean if self.boolean_output else in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.reduction(node, self.keep_dims)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axes = tuple(sorted(set(normalize_axes(np.asarray(inputs[1]).reshape(-1), x.ndim))))
        with np.errstate(all="ignore"):
            out = np.asarray(self.kernel(x, axes))
        if not self.keep_dims:
            out = out.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes))
        return [out.astype(x.dtype, copy=False)]


@dataclass(eq=False)
class ReduceSum(Reduction):
    type = "ReduceSum"

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.sum(x, axis=axes, keepdims=True)


@dataclass(eq=False)
class ReduceMean(Reduction):
    type = "ReduceMean"

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        if np.issubdtype(x.dtype, np.integer):
            count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
            return np.sum(x, axis=axes, keepdims=True) // max(count, 1)
        return np.mean(x, axis=axes, keepdims=True)


@dataclass(eq=False)
class ReduceProd(Reduction):
    type = "ReduceProd"

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.prod(x, axis=axes, keepdims=True)


@dataclass(eq=False)
class ReduceMax(Reduction):
    type = "ReduceMax"

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.max(x, axis=axes, keepdims=True)


@dataclass(eq=False)
class ReduceMin(Reduction):
    type = "ReduceMin"

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.min(x, axis=axes, keepdims=True)


@dataclass(eq=False)
class ReduceL1(Reduction):
    type = "ReduceL1"
    version = 4

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.sum(np.abs(x), axis=axes, keepdims=True)


@dataclass(eq=False)
class ReduceL2(Reduction):
    type = "ReduceL2"
    version = 4

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.sqrt(np.sum(np.square(x.astype(np.float64)), axis=axes, keepdims=True))


@dataclass(eq=False)
class ReduceLogicalAnd(Reduction):
    type = "ReduceLogicalAnd"
    boolean_output = True

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.all(x, axis=axes, keepdims=True)


@dataclass(eq=False)
class ReduceLogicalOr(Reduction):
    type = "ReduceLogicalOr"
    boolean_output = True

    def kernel(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.any(x, axis=axes, keepdims=True)


OPS: tuple[type[Op], ...] = (
    ReduceSum,
    ReduceMean,
    ReduceProd,
    ReduceMax,
    ReduceMin,
    ReduceL1,
    ReduceL2,
    ReduceLogicalAnd,
    ReduceLogicalOr,
)
