"""Cases for embedding bags, segment reductions and GatherTree, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    EmbeddingBagOffsets,
    EmbeddingBagOffsetsSum,
    EmbeddingBagPacked,
    EmbeddingBagPackedSum,
    EmbeddingSegmentsSum,
    GatherTree,
    SegmentMax,
    SparseFillEmptyRows,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(18)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i32(values: object) -> object:
    return const(np.array(values, np.int32))


CASES: list[OpCase] = [
    OpCase(EmbeddingBagOffsetsSum(), [tensor(6, 3), i32([0, 2, 3, 5, 1]), i32([0, 2, 2])], id="empty_bag_zero"),
    OpCase(
        EmbeddingBagOffsetsSum(),
        [tensor(6, 3), i32([0, 2, 3, 5, 1]), i32([0, 2, 2]), i32(4), tensor(5)],
        id="default_weights",
        dynamic=False,  # the CPU plugin needs static shapes with per-sample weights
    ),
    OpCase(EmbeddingBagOffsets(reduction="mean"), [tensor(6, 2), i32([1, 2, 3, 4]), i32([0, 1, 3])], id="mean"),
    OpCase(
        EmbeddingBagOffsets(),
        [tensor(6, 2), i32([1, 2, 3, 4]), i32([0, 3]), i32(0), tensor(4)],
        id="sum",
        dynamic=False,
    ),
    OpCase(EmbeddingBagPackedSum(), [tensor(5, 3), i32([[0, 1], [4, 4], [2, 3]])]),
    OpCase(EmbeddingBagPackedSum(), [tensor(5, 3), i32([[0, 1], [4, 2]]), tensor(2, 2)], id="weights", dynamic=False),
    OpCase(EmbeddingBagPacked(reduction="mean"), [tensor(5, 3), i32([[0, 1, 3], [4, 2, 2]])], id="mean"),
    OpCase(
        EmbeddingSegmentsSum(),
        [tensor(6, 2), i32([0, 2, 3, 5]), i32([0, 0, 2, 2]), i32(4), i32(1), tensor(4)],
        id="default_weights",
        dynamic=False,  # the CPU plugin needs static shapes with per-sample weights
    ),
    OpCase(EmbeddingSegmentsSum(), [tensor(6, 2), i32([0, 2, 3]), i32([0, 1, 1]), i32(3)], id="zero_fill"),
    OpCase(SegmentMax(), [tensor(5, 3), const(np.array([0, 0, 2, 2, 3], np.int64))], id="zero"),
    OpCase(
        SegmentMax(fill_mode="lowest"),
        [tensor(4, 2), const(np.array([0, 1, 1, 1], np.int64)), const(np.array(3, np.int64))],
        id="lowest",
    ),
    OpCase(
        GatherTree(),
        [
            np.array([[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]], [[2, 2, 2]]], np.float32),
            np.array([[[0, 0, 0]], [[0, 1, 1]], [[2, 1, 2]], [[0, 0, 0]]], np.float32),
            np.array([3], np.float32),
            np.array(8, np.float32),
        ],
    ),
    OpCase(
        GatherTree(),
        [
            rng.integers(0, 9, (5, 2, 3)).astype(np.int32),
            rng.integers(0, 3, (5, 2, 3)).astype(np.int32),
            np.array([5, 3], np.int32),
            np.array(4, np.int32),
        ],
        id="int_end_tokens",
    ),
    OpCase(
        SparseFillEmptyRows(),
        [
            np.float32([1, 2, 3, 4]),
            const(np.array([5, 3], np.int64)),
            np.array([[0, 1], [0, 2], [3, 0], [2, 1]], np.int64),
            const(np.float32(-1)),
        ],
    ),
    OpCase(
        SparseFillEmptyRows(),
        [
            np.array([7, 8, 9], np.int32),
            const(np.array([4, 6], np.int32)),
            const(np.array([[3, 5], [1, 0], [3, 1]], np.int32)),
            np.array(0, np.int32),
        ],
        id="int32",
    ),
]
