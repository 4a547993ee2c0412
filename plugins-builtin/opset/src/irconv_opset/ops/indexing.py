"""Indexing ops: Gather family, Scatter family, OneHot, CumSum, TopK, NonZero, Unique,
Bucketize, SearchSorted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
from irconv.errors import LoweringError
from irconv.ops import Op, attr
from irconv.types import Dim, ElementType, MaybeShape

from irconv_opset import symbol_rules
from irconv_opset.ops._attrs import INDEX_TYPES
from irconv_opset.rules import require_inputs, require_integer, require_same_type
from irconv_opset.shapes import (
    dynamic_shape,
    in_shape,
    in_type,
    in_value,
    normalize_axis,
    product,
    set_output,
)

if TYPE_CHECKING:
    from irconv.graph import Node


# ------------------------------------------------------------------------- Gather
def _one_axis(value: np.ndarray) -> int:
    """An axis input: a scalar or a 1-D tensor of one element (the spec allows both)."""
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise LoweringError(f"the axis input must hold one value, got shape {list(np.shape(value))}")
    return int(flat[0])


def _take_or_zero(data: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """``np.take``, with zeros where an index is outside ``[-size, size)``: OpenVINO's Gather
    fills those outputs with zeros rather than failing."""
    size = data.shape[axis]
    valid = (indices >= -size) & (indices < size)
    if valid.all():
        return np.take(data, indices, axis=axis)
    out_shape = data.shape[:axis] + indices.shape + data.shape[axis + 1 :]
    if size == 0:
        return np.zeros(out_shape, data.dtype)
    taken = np.take(data, np.where(valid, indices, 0), axis=axis)
    mask = valid.reshape((1,) * axis + indices.shape + (1,) * (data.ndim - axis - 1))
    return np.where(mask, taken, np.zeros((), data.dtype))


def _gather(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    """``np.take`` applied per batch item for the first ``batch_dims`` dims."""
    if batch_dims == 0:
        return _take_or_zero(data, indices, axis)
    if data.shape[0] == 0:  # no batch item to stack: the shape says it all
        return np.empty(data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis + 1 :], data.dtype)
    return np.stack([_gather(d, i, axis - 1, batch_dims - 1) for d, i in zip(data, indices, strict=False)])


@dataclass(eq=False)
class Gather(Op):
    """Gather-8: inputs data, indices, scalar axis; negative indices count from the end."""

    type = "Gather"
    version = 8
    arity = (3, 3)

    batch_dims: int = attr(0)

    def _batch_dims(self) -> int:
        return self.batch_dims

    def infer(self, node: Node) -> None:
        require_integer(node, 1, "indices")
        require_integer(node, 2, "axis")
        data, indices, axis_value = in_shape(node, 0), in_shape(node, 1), in_value(node, 2)
        out: MaybeShape = None
        if data is not None and indices is not None:
            batch = self._batch_dims()
            batch = batch + len(indices) if batch < 0 else batch
            if axis_value is not None:
                axis = normalize_axis(_one_axis(axis_value), len(data))
                out = tuple(data[:axis]) + tuple(indices[batch:]) + tuple(data[axis + 1 :])
            else:
                out = dynamic_shape(len(data) + len(indices) - 1 - batch)
        set_output(node, 0, out, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.gather(node, self._batch_dims())

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
        axis = normalize_axis(_one_axis(inputs[2]), data.ndim)
        batch = self._batch_dims()
        batch = batch + indices.ndim if batch < 0 else batch
        return [_gather(data, indices.astype(np.int64), axis, batch)]


@dataclass(eq=False)
class Gather_v7(Gather):
    type = "Gather"
    version = 7


@dataclass(eq=False)
class Gather_v1(Gather):
    type = "Gather"
    version = 1

    def _batch_dims(self) -> int:
        return 0

    def ir_attributes(self) -> dict[str, str]:
        return {}


# ----------------------------------------------------------------------- GatherND
def _gather_nd(data: np.ndarray, indices: np.ndarray, batch_dims: int) -> np.ndarray:
    if batch_dims and data.shape[0] == 0:
        shape = indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1] :]
        return np.empty(shape, data.dtype)
    if batch_dims:
        return np.stack([_gather_nd(d, i, batch_dims - 1) for d, i in zip(data, indices, strict=False)])
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    picked = data[tuple(flat.T)]
    return np.asarray(picked, dtype=data.dtype).reshape(indices.shape[:-1] + data.shape[k:])


@dataclass(eq=False)
class GatherND(Op):
    """GatherND-8: batch dims are kept as they are in the output."""

    type = "GatherND"
    version = 8
    arity = (2, 2)

    batch_dims: int = attr(0)

    def infer(self, node: Node) -> None:
        require_integer(node, 1, "indices")
        data, indices = in_shape(node, 0), in_shape(node, 1)
        out: MaybeShape = None
        if data is not None and indices is not None and indices[-1] is not None:
            out = self.out_shape(data, indices)
        set_output(node, 0, out, in_type(node, 0))

    def out_shape(self, data: tuple[Dim, ...], indices: tuple[Dim, ...]) -> tuple[Dim, ...]:
        k = indices[-1]
        assert k is not None
        return tuple(indices[:-1]) + tuple(data[self.batch_dims + k :])

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [_gather_nd(np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64), self.batch_dims)]


@dataclass(eq=False)
class GatherND_v5(GatherND):
    """GatherND-5: the batch dims are flattened into one output dim."""

    type = "GatherND"
    version = 5

    def out_shape(self, data: tuple[Dim, ...], indices: tuple[Dim, ...]) -> tuple[Dim, ...]:
        full = super().out_shape(data, indices)
        if not self.batch_dims:
            return full
        return (product(indices[: self.batch_dims]),) + full[self.batch_dims :]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        out = super().evaluate(inputs)[0]
        if self.batch_dims:
            out = out.reshape((-1,) + out.shape[self.batch_dims :])
        return [out]


@dataclass(eq=False)
class GatherElements(Op):
    type = "GatherElements"
    version = 6
    arity = (2, 2)

    axis: int = attr(0)

    def infer(self, node: Node) -> None:
        require_integer(node, 1, "indices")
        set_output(node, 0, in_shape(node, 1), in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.same_as_input(node, 1)  # the indices' shape

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, indices = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
        axis = normalize_axis(self.axis, data.ndim)
        indices = np.where(indices < 0, indices + data.shape[axis], indices)
        return [np.take_along_axis(data, indices, axis=axis)]


# ------------------------------------------------------------------------ Scatter
class _LikeData:
    """Scatter ops: the output is the data input's shape and type."""

    input_count: ClassVar[int] = 3  # data, indices, updates (+ axis where the op has one)

    def infer(self, node: Node) -> None:
        require_inputs(node, self.input_count)
        require_integer(node, 1, "indices")
        require_same_type(node, 0, 2, "updates")
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.same_as_input(node, 0)


@dataclass(eq=False)
class ScatterUpdate(_LikeData, Op):
    """Inputs data, indices, updates, scalar axis."""

    type = "ScatterUpdate"
    version = 3
    arity = (4, 4)
    input_count = 4

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data = np.array(inputs[0], copy=True)
        indices = np.asarray(inputs[1]).astype(np.int64).reshape(-1)
        axis = normalize_axis(int(inputs[3]), data.ndim)
        updates = np.asarray(inputs[2])
        updates = updates.reshape(data.shape[:axis] + (indices.size,) + data.shape[axis + 1 :])
        lead = (slice(None),) * axis
        for j, i in enumerate(indices):
            data[lead + (int(i),)] = updates[lead + (j,)]
        return [data]


_REDUCERS: dict[str, np.ufunc] = {
    "sum": np.add,
    "sub": np.subtract,
    "prod": np.multiply,
    "min": np.minimum,
    "max": np.maximum,
}


def _identity(reduction: str, dtype: np.dtype) -> object:
    """The start value of a reduction that ignores the initial data."""
    if reduction in ("sum", "mean", "sub"):
        return 0
    if reduction == "prod":
        return 1
    info = np.finfo(dtype) if np.issubdtype(dtype, np.floating) else np.iinfo(dtype)
    return info.max if reduction == "min" else info.min


def _scatter(
    data: np.ndarray, key: tuple[np.ndarray, ...], updates: np.ndarray, reduction: str, use_init: bool
) -> None:
    """Write ``updates`` at ``key`` (fancy index) into ``data`` in place; duplicates reduce.

    Unbuffered ``ufunc.at`` keeps every duplicate; for ``none`` the last write wins.
    """
    if reduction == "none":
        data[key] = updates
        return
    if not use_init:
        data[key] = _identity(reduction, data.dtype)
    if reduction == "mean":
        total = data.astype(np.float64)
        count = np.ones(data.shape, np.int64) if use_init else np.zeros(data.shape, np.int64)
        np.add.at(total, key, updates)
        np.add.at(count, key, 1)
        touched = np.zeros(data.shape, bool)
        touched[key] = True
        mean = total / np.maximum(count, 1)
        if np.issubdtype(data.dtype, np.integer):
            mean = np.floor(mean)
        data[touched] = mean[touched].astype(data.dtype)
        return
    _REDUCERS[reduction].at(data, key, updates)


@dataclass(eq=False)
class ScatterNDUpdate(_LikeData, Op):
    """ScatterNDUpdate-15: inputs data, indices ``[..., K]``, updates; with ``reduction``."""

    type = "ScatterNDUpdate"
    version = 15
    arity = (3, 3)

    reduction: str = attr("none", choices=("none", "sum", "sub", "prod", "min", "max"))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data = np.array(inputs[0], copy=True)
        indices = np.asarray(inputs[1]).astype(np.int64)
        k = indices.shape[-1]
        flat = indices.reshape(-1, k)
        updates = np.asarray(inputs[2]).reshape((flat.shape[0],) + data.shape[k:]).astype(data.dtype)
        _scatter(data, tuple(flat.T), updates, self.reduction, True)
        return [data]


@dataclass(eq=False)
class ScatterNDUpdate_v3(ScatterNDUpdate):
    type = "ScatterNDUpdate"
    version = 4

    def ir_attributes(self) -> dict[str, str]:
        return {}


@dataclass(eq=False)
class ScatterElementsUpdate(_LikeData, Op):
    """ScatterElementsUpdate-12: inputs data, indices, updates, scalar axis."""

    type = "ScatterElementsUpdate"
    version = 12
    arity = (4, 4)
    input_count = 4

    reduction: str = attr("none", choices=("none", "sum", "prod", "min", "max", "mean"))
    use_init_val: bool = attr(True)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data = np.array(inputs[0], copy=True)
        indices = np.asarray(inputs[1]).astype(np.int64)
        updates = np.asarray(inputs[2])
        axis = normalize_axis(int(inputs[3]), data.ndim)
        indices = np.where(indices < 0, indices + data.shape[axis], indices)
        grids: tuple[np.ndarray, ...] = tuple(np.indices(indices.shape, sparse=True))
        key = tuple(indices if d == axis else grid for d, grid in enumerate(grids))
        _scatter(data, key, updates.astype(data.dtype), self.reduction, self.use_init_val)
        return [data]


@dataclass(eq=False)
class ScatterElementsUpdate_v3(ScatterElementsUpdate):
    type = "ScatterElementsUpdate"
    version = 3

    def ir_attributes(self) -> dict[str, str]:
        return {}


# ------------------------------------------------------------------------- OneHot
@dataclass(eq=False)
class OneHot(Op):
    """Inputs indices, scalar depth, on_value, off_value; out-of-range indices are all off."""

    type = "OneHot"
    version = 1
    arity = (4, 4)

    axis: int = attr(-1)

    def infer(self, node: Node) -> None:
        indices, depth = in_shape(node, 0), in_value(node, 1)
        out: MaybeShape = None
        if indices is not None:
            axis = normalize_axis(self.axis, len(indices) + 1)
            d: Dim = None if depth is None else int(np.asarray(depth).reshape(-1)[0])
            out = tuple(indices[:axis]) + (d,) + tuple(indices[axis:])
        set_output(node, 0, out, in_type(node, 2))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        indices = np.asarray(inputs[0]).astype(np.int64)
        depth = int(np.asarray(inputs[1]).reshape(-1)[0])
        on, off = np.asarray(inputs[2]), np.asarray(inputs[3])
        axis = normalize_axis(self.axis, indices.ndim + 1)
        hot = np.expand_dims(indices, axis) == np.arange(depth).reshape((-1,) + (1,) * (indices.ndim - axis))
        return [np.where(hot, on, off).astype(on.dtype)]


# ------------------------------------------------------------------------- CumSum
@dataclass(eq=False)
class CumSum(Op):
    """Inputs data and an optional scalar axis (default 0)."""

    type = "CumSum"
    version = 3
    arity = (1, 2)

    exclusive: bool = attr(False)
    reverse: bool = attr(False)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axis = normalize_axis(int(inputs[1]), x.ndim) if len(inputs) > 1 else 0
        if self.reverse:
            x = np.flip(x, axis)
        out = np.cumsum(x, axis=axis, dtype=x.dtype)
        if self.exclusive:
            out = out - x
        if self.reverse:
            out = np.flip(out, axis)
        return [np.ascontiguousarray(out)]


# --------------------------------------------------------------------------- TopK
@dataclass(eq=False)
class TopK(Op):
    """TopK-11: inputs data and scalar k; outputs values and indices."""

    type = "TopK"
    version = 11
    arity = (2, 2)
    outputs = 2

    axis: int = attr(-1)
    mode: str = attr("max", choices=("max", "min"))
    sort: str = attr("value", choices=("value", "index", "none"))
    index_element_type: ElementType = attr(ElementType.i32, choices=INDEX_TYPES)
    stable: bool = attr(False)

    def infer(self, node: Node) -> None:
        if self.stable and self.sort == "none":  # OpenVINO refuses the pair when reading the IR
            raise ValueError("a stable TopK needs sort 'value' or 'index', not 'none'")
        shape, k = in_shape(node, 0), in_value(node, 1)
        out: MaybeShape = None
        if shape is not None:
            axis = normalize_axis(self.axis, len(shape))
            dim: Dim = None
            if k is not None:
                requested = int(np.asarray(k).reshape(-1)[0])
                size = shape[axis]
                dim = requested if size is None else min(requested, size)
            out = tuple(dim if i == axis else d for i, d in enumerate(shape))
        set_output(node, 0, out, in_type(node, 0))
        set_output(node, 1, out, self.index_element_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axis = normalize_axis(self.axis, x.ndim)
        k = min(int(np.asarray(inputs[1]).reshape(-1)[0]), x.shape[axis])
        keys = -x if self.mode == "max" else x
        order = np.argsort(keys, axis=axis, kind="stable")
        top = np.take(order, np.arange(k), axis=axis)
        if self.sort == "index":
            top = np.sort(top, axis=axis)
        values = np.take_along_axis(x, top, axis=axis)
        return [values, top.astype(self.index_element_type.numpy)]


@dataclass(eq=False)
class TopK_v3(TopK):
    type = "TopK"
    version = 3

    def ir_attributes(self) -> dict[str, str]:
        attrs = super().ir_attributes()
        del attrs["stable"]
        return attrs


@dataclass(eq=False)
class TopK_v1(TopK_v3):
    type = "TopK"
    version = 1


# ------------------------------------------------------------------------ NonZero
@dataclass(eq=False)
class NonZero(Op):
    """Output ``[rank, count]`` of the indices of non-zero elements; count is dynamic."""

    type = "NonZero"
    version = 3
    arity = (1, 1)

    output_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        set_output(node, 0, None if shape is None else (len(shape), None), self.output_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        return [np.array(np.nonzero(x), dtype=self.output_type.numpy).reshape(x.ndim, -1)]


# ------------------------------------------------------------------------- Unique
@dataclass(eq=False)
class Unique(Op):
    """Inputs data and optional scalar axis.

    Outputs: unique elements (or slices along ``axis``), the input index of each one's
    first occurrence, for every input element its position in the output, and counts.
    """

    type = "Unique"
    version = 10
    arity = (1, 2)
    outputs = 4

    sorted: bool = attr(True)
    index_element_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)
    count_element_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)

    def infer(self, node: Node) -> None:
        shape, axis_value = in_shape(node, 0), in_value(node, 1)
        et = in_type(node, 0)
        if not node.has_input(1):
            total = product(shape) if shape is not None else None
            set_output(node, 0, (None,), et)
            set_output(node, 2, (total,), self.index_element_type)
        else:
            out: MaybeShape = None
            length: Dim = None
            if shape is not None and axis_value is not None:
                axis = normalize_axis(_one_axis(axis_value), len(shape))
                out = tuple(None if i == axis else d for i, d in enumerate(shape))
                length = shape[axis]
            set_output(node, 0, out, et)
            set_output(node, 2, (length,), self.index_element_type)
        set_output(node, 1, (None,), self.index_element_type)
        set_output(node, 3, (None,), self.count_element_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axis = normalize_axis(int(inputs[1]), x.ndim) if len(inputs) > 1 else None
        source = x.reshape(-1) if axis is None else x
        values, first, inverse, counts = np.unique(
            source, return_index=True, return_inverse=True, return_counts=True, axis=0 if axis is None else axis
        )
        inverse = inverse.reshape(-1)
        if not self.sorted:
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            values = np.take(values, order, axis=0 if axis is None else axis)
            first, counts, inverse = first[order], counts[order], rank[inverse]
        index_type, count_type = self.index_element_type.numpy, self.count_element_type.numpy
        return [values, first.astype(index_type), inverse.astype(index_type), counts.astype(count_type)]


# ---------------------------------------------------------------------- searching
@dataclass(eq=False)
class Bucketize(Op):
    """Inputs data and sorted 1-D buckets; the bucket index of every element."""

    type = "Bucketize"
    version = 3
    arity = (2, 2)

    output_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)
    with_right_bound: bool = attr(True)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), self.output_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        side: Literal["left", "right"] = "left" if self.with_right_bound else "right"
        index = np.searchsorted(np.asarray(inputs[1]), np.asarray(inputs[0]), side=side)
        return [index.astype(self.output_type.numpy)]


@dataclass(eq=False)
class SearchSorted(Op):
    """Inputs sorted_sequence and values; leading dims of both must match (or 1-D sequence)."""

    type = "SearchSorted"
    version = 15
    arity = (2, 2)

    right_mode: bool = attr(False)
    output_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 1), self.output_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        sequence, values = np.asarray(inputs[0]), np.asarray(inputs[1])
        side: Literal["left", "right"] = "right" if self.right_mode else "left"
        if sequence.ndim == 1:
            out = np.searchsorted(sequence, values, side=side)
        else:
            rows = sequence.reshape(-1, sequence.shape[-1])
            vals = values.reshape(rows.shape[0], -1)
            out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vals, strict=False)]).reshape(
                values.shape
            )
        return [np.asarray(out).astype(self.output_type.numpy)]


OPS: tuple[type[Op], ...] = (
    Gather_v1,
    Gather_v7,
    Gather,
    GatherND_v5,
    GatherND,
    GatherElements,
    ScatterUpdate,
    ScatterNDUpdate_v3,
    ScatterNDUpdate,
    ScatterElementsUpdate_v3,
    ScatterElementsUpdate,
    OneHot,
    CumSum,
    TopK_v1,
    TopK_v3,
    TopK,
    NonZero,
    Unique,
    Bucketize,
    SearchSorted,
)
