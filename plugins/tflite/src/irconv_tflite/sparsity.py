"""Sparse constant tensors (TFLite's ``SparsityParameters``) made dense when the file is read.

A sparse tensor stores its non-zero values in the order of a traversal of its dimensions,
each optionally split into blocks: ``traversal_order`` lists the dimensions (the original
ones first, then the block dimensions, each of which ``block_map`` ties to an original
dimension), and one ``DimensionMetadata`` per traversed dimension says whether it is
DENSE (all ``dense_size`` positions) or SPARSE_CSR (per position of the enclosing
dimensions, a segment of ``array_indices``, bounded by ``array_segments``). The traversal
is expanded level by level (every value's coordinates at once), then the values are
written at those coordinates of a zero tensor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from irconv.graph.budget import declared_size


@dataclass(frozen=True, slots=True)
class Level:
    """One traversed dimension: DENSE with ``dense_size`` positions, or SPARSE_CSR."""

    sparse: bool
    dense_size: int
    segments: np.ndarray | None = None
    indices: np.ndarray | None = None


class SparsityError(ValueError):
    """The sparsity parameters do not describe the tensor (the reader names the file)."""


def densify(values: np.ndarray, shape: tuple[int, ...], traversal_order: list[int], block_map: list[int],
            levels: list[Level], where: str = "sparse tensor") -> np.ndarray:
    """The dense tensor of ``shape`` whose non-zero ``values`` the parameters place.

    Every ``dense_size`` is checked against the dimension it traverses (and the budget)
    before a position is enumerated: a corrupt size is refused, not allocated.
    """
    rank = len(shape)
    if sorted(traversal_order) != list(range(rank + len(block_map))) or len(levels) != len(traversal_order):
        raise SparsityError(f"traversal order {traversal_order} and {len(levels)} dimension metadata do not fit "
                            f"a rank-{rank} tensor with {len(block_map)} block dimensions")
    if any(not 0 <= dim < rank for dim in block_map):
        raise SparsityError(f"block map {block_map} names dimensions outside a rank-{rank} tensor")
    total = math.prod(shape)
    for number, (level, dim) in enumerate(zip(levels, traversal_order, strict=True)):
        if not level.sparse:
            # a dense level spans its dimension (or, for a block dimension, at most the blocked one)
            declared_size(level.dense_size, field="dense_size", where=f"{where}, dimension metadata {number}",
                          limit=shape[dim if dim < rank else block_map[dim - rank]], unit_bytes=8)
    block_sizes = [levels[traversal_order.index(rank + b)].dense_size for b in range(len(block_map))]
    positions = np.zeros(1, np.int64)  # per path so far: its position in the traversal
    coordinates: list[np.ndarray] = []  # per level: each path's index there
    for level in levels:
        if not level.sparse:
            size = level.dense_size
            if len(positions) * size > total:
                raise SparsityError(f"the dense sizes reach more than the {total} positions of the shape {list(shape)}")
            coordinates = [np.repeat(c, size) for c in coordinates]
            coordinates.append(np.tile(np.arange(size, dtype=np.int64), len(positions)))
            positions = (np.repeat(positions, size) * size + coordinates[-1])
            continue
        assert level.segments is not None and level.indices is not None
        if positions.size and (positions.max() + 1 >= level.segments.size):
            raise SparsityError("a sparse dimension has fewer segments than the dimensions around it need")
        starts, ends = level.segments[positions], level.segments[positions + 1]
        counts = ends - starts
        if np.any(counts < 0) or (ends.size and ends.max() > level.indices.size):
            raise SparsityError("a sparse dimension's segments run outside its indices")
        coordinates = [np.repeat(c, counts) for c in coordinates]
        positions = np.concatenate([np.arange(a, b, dtype=np.int64) for a, b in zip(starts, ends, strict=True)]
                                   or [np.zeros(0, np.int64)])
        coordinates.append(level.indices[positions].astype(np.int64))
    if positions.size != values.size:
        raise SparsityError(f"the traversal reaches {positions.size} values, the buffer holds {values.size}")
    original = [np.zeros(positions.size, np.int64) for _ in range(rank)]
    for level_index, dim in enumerate(traversal_order):
        if dim < rank:
            original[dim] = coordinates[level_index]
    for level_index, dim in enumerate(traversal_order):
        if dim >= rank:
            block = dim - rank
            target = block_map[block]
            original[target] = original[target] * block_sizes[block] + coordinates[level_index]
    for dim, index in enumerate(original):
        if index.size and (index.min() < 0 or index.max() >= shape[dim]):
            raise SparsityError(f"a value lands outside dimension {dim} of the shape {list(shape)}")
    dense = np.zeros(shape, values.dtype)
    dense[tuple(original)] = values
    return dense
