"""Shape arithmetic with dynamic dimensions, shared by the op families.

A shape is a tuple of dims where ``None`` is a dynamic dim; ``None`` instead of a tuple
is a dynamic rank. Helpers here never invent a static fact from a dynamic one. They do not
know the node they work for: their errors are ``LoweringError``s, which inference and
extraction name the node in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import LoweringError, quoted
from irconv.types import Dim, ElementType, MaybeShape, Shape

if TYPE_CHECKING:
    from irconv.graph import Node


def broadcast_dim(a: Dim, b: Dim) -> Dim:
    """NumPy broadcasting of one dim pair; a dynamic dim against 1 stays dynamic."""
    if a == 1:
        return b
    if b == 1:
        return a
    if a is None:
        return b
    if b is None:
        return a
    if a != b:
        raise LoweringError(f"dimensions {a} and {b} cannot be broadcast")
    return a


def broadcast_shapes(*shapes: MaybeShape) -> MaybeShape:
    """NumPy-style broadcast of any number of shapes (dynamic rank wins)."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes if s is not None), default=0)
    result: list[Dim] = [1] * rank
    for shape in shapes:
        assert shape is not None
        padded = (1,) * (rank - len(shape)) + tuple(shape)
        result = [broadcast_dim(r, d) for r, d in zip(result, padded, strict=False)]
    return tuple(result)


def pdpd_broadcast(target: MaybeShape, other: MaybeShape, axis: int) -> MaybeShape:
    """PDPD broadcasting: ``other`` is aligned to ``target`` starting at ``axis``."""
    if target is None or other is None:
        return target
    if axis == -1:
        axis = len(target) - len(other)
    for i, d in enumerate(other):
        t = target[axis + i]
        if d not in (1, None) and t is not None and d != t:
            raise LoweringError(f"shape {other} cannot be broadcast to {target} at axis {axis}")
    return target


def auto_broadcast(mode: str, a: MaybeShape, b: MaybeShape, axis: int = -1) -> MaybeShape:
    """The output shape of a binary op for an ``auto_broadcast`` attribute value."""
    if mode == "numpy":
        return broadcast_shapes(a, b)
    if mode == "pdpd":
        return pdpd_broadcast(a, b, axis)
    if mode == "none":
        if a is None:
            return b
        if b is None:
            return a
        if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b, strict=True)):
            raise LoweringError(f"auto_broadcast=none needs equal shapes, got {a} and {b}")
        return tuple(x if x is not None else y for x, y in zip(a, b, strict=False))
    raise LoweringError(f"unknown auto_broadcast mode {quoted(mode)}")


def normalize_axis(axis: int, rank: int) -> int:
    """Map a possibly negative axis into ``[0, rank)``."""
    if not -rank <= axis < rank:
        raise LoweringError(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def normalize_axes(axes: Iterable[int], rank: int) -> list[int]:
    return [normalize_axis(int(a), rank) for a in axes]


def dynamic_shape(rank: int | None) -> MaybeShape:
    """A shape of ``rank`` dynamic dims (dynamic rank for None)."""
    return None if rank is None else (None,) * rank


def shape_of_value(value: np.ndarray | None) -> Shape | None:
    """A 1-D integer tensor read as a shape, or None."""
    if value is None:
        return None
    return tuple(int(v) for v in np.asarray(value).reshape(-1))


def product(dims: Sequence[Dim]) -> int | None:
    """Product of dims, None when any is dynamic."""
    total = 1
    for d in dims:
        if d is None:
            return None
        total *= d
    return total


def rank_of(shape: MaybeShape) -> int | None:
    return None if shape is None else len(shape)


def in_shape(node: Node, idx: int) -> MaybeShape:
    return node.in_port(idx).data.get_shape()


def in_type(node: Node, idx: int) -> ElementType:
    return node.in_port(idx).data.get_type()


def in_value(node: Node, idx: int) -> np.ndarray | None:
    """The value at input ``idx`` known to inference (None when absent or unknown):
    ``InPort.constant``, values computed from shapes included."""
    return node.in_port(idx).constant(shape_derived=True) if node.has_input(idx) else None


def set_output(node: Node, idx: int, shape: MaybeShape, element_type: ElementType) -> None:
    data = node.out_port(idx).data
    data.set_shape(shape)
    data.set_type(element_type)


def merge_dim(a: Dim, b: Dim) -> Dim:
    """Two dims that must be equal: the static one wins."""
    if a is None:
        return b
    if b is not None and a != b:
        raise LoweringError(f"dimensions {a} and {b} must be equal")
    return a


def index_type(name: str) -> ElementType:
    """``i32``/``i64`` attribute values as element types."""
    return ElementType.parse(name)
