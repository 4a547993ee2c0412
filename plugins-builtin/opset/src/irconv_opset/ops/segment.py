"""Segment and bag reductions: EmbeddingBag*/EmbeddingSegmentsSum, SegmentMax, GatherTree,
and SparseFillEmptyRows.

An embedding bag sums (or averages) rows of a table picked by indices; bags are given by
offsets (``Offsets``), by a fixed-size index matrix (``Packed``) or by segment ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.ops import Op, attr
from irconv.types import Dim, ElementType, MaybeShape

from irconv_opset.rules import require_static_inputs
from irconv_opset.shapes import in_shape, in_type, in_value, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


def _optional(inputs: Sequence[np.ndarray], idx: int) -> np.ndarray | None:
    return np.asarray(inputs[idx]) if len(inputs) > idx and inputs[idx] is not None else None


def _reduce_bag(
    table: np.ndarray,
    rows: np.ndarray,
    weights: np.ndarray | None,
    default: int | None,
    mean: bool,
) -> np.ndarray:
    """One output row: the weighted sum (or mean) of ``table[rows]``; empty bags use ``default``."""
    if rows.size == 0:
        if default is not None and 0 <= default < table.shape[0]:
            return table[default].astype(np.float64)
        return np.zeros(table.shape[1:], np.float64)
    picked = table[rows].astype(np.float64)
    if weights is not None:
        picked = picked * weights.astype(np.float64).reshape((-1,) + (1,) * (picked.ndim - 1))
    total = picked.sum(axis=0)
    return total / rows.size if mean else total


def _table_rows_shape(node: Node, rows: Dim) -> MaybeShape:
    table = in_shape(node, 0)
    return None if table is None else (rows,) + tuple(table[1:])


# ------------------------------------------------------------------- offsets bags
@dataclass(eq=False)
class EmbeddingBagOffsets(Op):
    """EmbeddingBagOffsets-15: inputs table, indices [K], offsets [B], default_index,
    per_sample_weights [K] (sum only)."""

    type = "EmbeddingBagOffsets"
    version = 15
    arity = (3, 5)

    reduction: str = attr("sum", choices=("sum", "mean"))

    def _mean(self) -> bool:
        return self.reduction == "mean"

    def infer(self, node: Node) -> None:
        offsets = in_shape(node, 2)
        set_output(node, 0, _table_rows_shape(node, None if offsets is None else offsets[0]), in_type(node, 0))

    def check(self, node: Node) -> None:
        if node.has_input(4):  # per-sample weights: the CPU plugin then needs the bag shapes
            require_static_inputs(node, {1: "indices", 2: "offsets", 4: "per-sample weights"})

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        table, indices, offsets = (np.asarray(v) for v in inputs[:3])
        default = _optional(inputs, 3)
        weights = _optional(inputs, 4)
        bounds = list(offsets.reshape(-1)) + [indices.size]
        out = []
        for b in range(offsets.size):
            lo, hi = int(bounds[b]), int(bounds[b + 1])
            rows = indices[lo:hi].astype(np.int64)
            bag_weights = None if weights is None else weights[lo:hi]
            out.append(_reduce_bag(table, rows, bag_weights, None if default is None else int(default), self._mean()))
        return [np.array(out).astype(table.dtype).reshape((offsets.size,) + table.shape[1:])]


@dataclass(eq=False)
class EmbeddingBagOffsetsSum(EmbeddingBagOffsets):
    type = "EmbeddingBagOffsetsSum"
    version = 3

    def _mean(self) -> bool:
        return False

    def ir_attributes(self) -> dict[str, str]:
        return {}


# -------------------------------------------------------------------- packed bags
@dataclass(eq=False)
class EmbeddingBagPacked(Op):
    """EmbeddingBagPacked-15: inputs table, indices [B, L], per_sample_weights [B, L] (sum only)."""

    type = "EmbeddingBagPacked"
    version = 15
    arity = (2, 3)

    reduction: str = attr("sum", choices=("sum", "mean"))

    def _mean(self) -> bool:
        return self.reduction == "mean"

    def infer(self, node: Node) -> None:
        indices = in_shape(node, 1)
        set_output(node, 0, _table_rows_shape(node, None if indices is None else indices[0]), in_type(node, 0))

    def check(self, node: Node) -> None:
        if node.has_input(2):  # per-sample weights: the CPU plugin then needs the bag shapes
            require_static_inputs(node, {1: "indices", 2: "per-sample weights"})

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        table, indices = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
        weights = _optional(inputs, 2)
        out = [
            _reduce_bag(table, indices[b], None if weights is None else weights[b], None, self._mean())
            for b in range(indices.shape[0])
        ]
        return [np.array(out).astype(table.dtype).reshape((indices.shape[0],) + table.shape[1:])]


@dataclass(eq=False)
class EmbeddingBagPackedSum(EmbeddingBagPacked):
    type = "EmbeddingBagPackedSum"
    version = 3

    def _mean(self) -> bool:
        return False

    def ir_attributes(self) -> dict[str, str]:
        return {}


# ------------------------------------------------------------------ segment bags
@dataclass(eq=False)
class EmbeddingSegmentsSum(Op):
    """Inputs table, indices [K], segment_ids [K], num_segments, default_index, per_sample_weights."""

    type = "EmbeddingSegmentsSum"
    version = 3
    arity = (4, 6)

    def infer(self, node: Node) -> None:
        count = in_value(node, 3)
        rows = None if count is None else int(np.asarray(count).reshape(-1)[0])
        set_output(node, 0, _table_rows_shape(node, rows), in_type(node, 0))

    def check(self, node: Node) -> None:
        if node.has_input(5):  # per-sample weights: the CPU plugin then needs the bag shapes
            require_static_inputs(node, {1: "indices", 2: "segment ids", 5: "per-sample weights"})

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        table, indices, segments = (np.asarray(v) for v in inputs[:3])
        count = int(np.asarray(inputs[3]).reshape(-1)[0])
        default = _optional(inputs, 4)
        weights = _optional(inputs, 5)
        out = []
        for s in range(count):
            mask = segments.reshape(-1) == s
            rows = indices.reshape(-1)[mask].astype(np.int64)
            seg_weights = None if weights is None else weights.reshape(-1)[mask]
            out.append(_reduce_bag(table, rows, seg_weights, None if default is None else int(default), False))
        return [np.array(out).astype(table.dtype).reshape((count,) + table.shape[1:])]


# --------------------------------------------------------------------- SegmentMax
@dataclass(eq=False)
class SegmentMax(Op):
    """Inputs data, sorted segment_ids [N], optional num_segments; empty segments get
    0 (``fill_mode=zero``) or the type's lowest value (``lowest``)."""

    type = "SegmentMax"
    version = 16
    arity = (2, 3)

    fill_mode: str = attr("zero", choices=("zero", "lowest"))

    def _count(self, segment_ids: np.ndarray | None, num_segments: np.ndarray | None) -> int | None:
        if num_segments is not None:
            return int(np.asarray(num_segments).reshape(-1)[0])
        if segment_ids is not None:
            return int(segment_ids.max()) + 1 if segment_ids.size else 0
        return None

    def infer(self, node: Node) -> None:
        data = in_shape(node, 0)
        count = self._count(in_value(node, 1), in_value(node, 2) if node.has_input(2) else None)
        set_output(node, 0, None if data is None else (count,) + tuple(data[1:]), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, ids = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
        count = self._count(ids, _optional(inputs, 2)) or 0
        if self.fill_mode.lower() == "lowest":
            info = np.finfo(data.dtype) if np.issubdtype(data.dtype, np.floating) else np.iinfo(data.dtype)
            fill = info.min
        else:
            fill = 0
        out = np.full((count,) + data.shape[1:], fill, dtype=data.dtype)
        for s in range(count):
            mask = ids == s
            if mask.any():
                out[s] = data[mask].max(axis=0)
        return [out]


# --------------------------------------------------------------------- GatherTree
@dataclass(eq=False)
class GatherTree(Op):
    """Beam search back-tracking: inputs step_ids [T, B, W], parent_idx [T, B, W],
    max_seq_len [B], end_token (scalar)."""

    type = "GatherTree"
    version = 1
    arity = (4, 4)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        steps, parents, lengths = (np.asarray(v) for v in inputs[:3])
        end = np.asarray(inputs[3]).reshape(-1)[0]
        time, batch, width = steps.shape
        out = np.empty_like(steps)
        for b in range(batch):
            limit = min(time, int(lengths[b]))
            for w in range(width):
                out[limit:, b, w] = end
                parent = w
                for t in range(limit - 1, -1, -1):
                    out[t, b, w] = steps[t, b, parent]
                    parent = int(parents[t, b, parent])
                finished = False
                for t in range(limit):
                    if finished:
                        out[t, b, w] = end
                    elif out[t, b, w] == end:
                        finished = True
        return [out]


@dataclass(eq=False)
class SparseFillEmptyRows(Op):
    """Inputs values [N], dense_shape [2], indices [N, 2], default_value (scalar).

    Every row of the 2-D sparse tensor without an entry gets one at column 0 holding the
    default value; entries come out ordered by (row, column). Outputs the indices [M, 2],
    the values [M] and, per row, whether it was empty.
    """

    type = "SparseFillEmptyRows"
    version = 16
    arity = (4, 4)
    outputs = 3

    def infer(self, node: Node) -> None:
        dense, indices = in_value(node, 1), in_value(node, 2)
        rows = None if dense is None else int(np.asarray(dense).reshape(-1)[0])
        count: Dim = None
        if rows is not None and indices is not None:
            count = indices.shape[0] + rows - np.unique(indices[:, 0]).size
        set_output(node, 0, (count, 2), in_type(node, 2))
        set_output(node, 1, (count,), in_type(node, 0))
        set_output(node, 2, (rows,), ElementType.boolean)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        values, dense, indices = np.asarray(inputs[0]), np.asarray(inputs[1]), np.asarray(inputs[2])
        default = np.asarray(inputs[3]).reshape(-1)[0]
        rows = int(dense.reshape(-1)[0])
        empty = np.ones(rows, np.bool_)
        empty[indices[:, 0].astype(np.int64)] = False
        missing = np.nonzero(empty)[0]
        all_indices = np.concatenate(
            [indices, np.stack([missing, np.zeros_like(missing)], axis=1).astype(indices.dtype)]
        )
        all_values = np.concatenate([values, np.full(missing.size, default, values.dtype)])
        order = np.lexsort((all_indices[:, 1], all_indices[:, 0]))
        return [all_indices[order], all_values[order], empty]


OPS: tuple[type[Op], ...] = (
    EmbeddingBagOffsetsSum,
    EmbeddingBagOffsets,
    EmbeddingBagPackedSum,
    EmbeddingBagPacked,
    EmbeddingSegmentsSum,
    SegmentMax,
    GatherTree,
    SparseFillEmptyRows,
)
