"""Cases for the indexing family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv.types import ElementType
from irconv_opset import (
    Bucketize,
    CumSum,
    Gather,
    Gather_v1,
    Gather_v7,
    GatherElements,
    GatherND,
    GatherND_v5,
    NonZero,
    OneHot,
    ScatterElementsUpdate,
    ScatterElementsUpdate_v3,
    ScatterNDUpdate,
    ScatterNDUpdate_v3,
    ScatterUpdate,
    SearchSorted,
    TopK,
    TopK_v1,
    TopK_v3,
    Unique,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(17)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def idx(values: object, dtype: type = np.int64) -> object:
    return const(np.array(values, dtype))


def scalar(value: int) -> object:
    return const(np.array(value, np.int64))


CASES: list[OpCase] = [
    OpCase(Gather_v1(), [tensor(5, 3), idx([[0, 4], [2, 2]]), scalar(0)]),
    OpCase(Gather_v7(batch_dims=1), [tensor(2, 5, 3), idx([[0, 4], [1, 3]]), scalar(1)]),
    OpCase(Gather(), [tensor(4, 6), idx([1, -1, 3]), scalar(-1)], id="negative_indices"),
    OpCase(Gather(batch_dims=1), [tensor(2, 4, 3), idx([[0, 3, 1], [2, 2, 0]]), scalar(1)], id="batch"),
    OpCase(Gather(), [tensor(4, 6), np.array([3, 0], np.int32), scalar(0)], id="runtime_indices"),
    OpCase(Gather(), [tensor(4, 6), idx(2), scalar(0)], id="scalar_index"),
    OpCase(GatherND_v5(), [tensor(3, 4, 2), idx([[0, 1], [2, 3]])]),
    OpCase(GatherND_v5(batch_dims=1), [tensor(2, 3, 4), idx([[[1]], [[2]]])], id="batch"),
    OpCase(GatherND(), [tensor(3, 4, 2), idx([[0, 1], [2, 3]])]),
    OpCase(GatherND(batch_dims=1), [tensor(2, 3, 4), idx([[[1, 0]], [[2, 3]]])], id="batch"),
    OpCase(GatherElements(axis=1), [tensor(3, 4), idx(rng.integers(0, 4, (3, 2)))]),
    OpCase(GatherElements(axis=0), [tensor(3, 4), idx(rng.integers(0, 3, (2, 4)), np.int32)], id="axis0"),
    OpCase(ScatterUpdate(), [tensor(5, 3), idx([4, 1]), tensor(2, 3), scalar(0)]),
    OpCase(ScatterUpdate(), [tensor(2, 5), idx([[0, 3]]), tensor(2, 1, 2), scalar(1)], id="axis1"),
    OpCase(ScatterNDUpdate_v3(), [tensor(4, 3), idx([[0], [2]]), tensor(2, 3)]),
    OpCase(ScatterNDUpdate(), [tensor(4, 3), idx([[1, 2], [3, 0]]), tensor(2)], id="elements"),
    OpCase(ScatterNDUpdate(reduction="sum"), [tensor(4, 3), idx([[1], [1], [3]]), tensor(3, 3)], id="sum"),
    OpCase(ScatterNDUpdate(reduction="max"), [tensor(4, 3), idx([[0], [2]]), tensor(2, 3)], id="max"),
    OpCase(ScatterNDUpdate(reduction="sub"), [tensor(4, 3), idx([[1, 1], [1, 1], [0, 2]]), tensor(3)], id="sub"),
    OpCase(ScatterNDUpdate(reduction="prod"), [tensor(4, 3), idx([[2], [2]]), tensor(2, 3)], id="prod"),
    OpCase(ScatterNDUpdate(reduction="min"), [tensor(2, 3, 2), idx([[1, 2], [1, 2]]), tensor(2, 2)], id="min"),
    OpCase(
        ScatterElementsUpdate_v3(),
        [tensor(3, 4), idx([[0, 2], [1, 0]]), tensor(2, 2), scalar(1)],
    ),
    OpCase(
        ScatterElementsUpdate(reduction="sum"),
        [tensor(3, 4), idx([[0, 2, 2], [1, 1, 1]]), tensor(2, 3), scalar(0)],
        id="sum",
    ),
    OpCase(
        ScatterElementsUpdate(reduction="mean", use_init_val=False),
        [tensor(3, 4), idx([[0, 2, 2], [0, 2, 2]]), tensor(2, 3), scalar(0)],
        id="mean",
    ),
    OpCase(
        ScatterElementsUpdate(reduction="mean"),
        [tensor(3, 4), idx([[0, 2, 2], [0, 2, 1]]), tensor(2, 3), scalar(0)],
        id="mean_with_init",
    ),
    OpCase(
        ScatterElementsUpdate(reduction="min", use_init_val=False),
        [tensor(3, 4), idx([[1, 1], [1, 3]]), tensor(2, 2), scalar(1)],
        id="min_no_init",
    ),
    OpCase(
        ScatterElementsUpdate(reduction="max"),
        [tensor(3, 4), idx([[1, 1], [2, 1]]), tensor(2, 2), scalar(0)],
        id="max",
    ),
    OpCase(
        ScatterElementsUpdate(reduction="sum", use_init_val=False),
        [
            rng.integers(-5, 5, (3, 4)).astype(np.int32),
            idx([[1, 1], [2, 1]]),
            rng.integers(-5, 5, (2, 2)).astype(np.int32),
            scalar(0),
        ],
        id="sum_int_no_init",
    ),
    OpCase(
        ScatterElementsUpdate(reduction="prod"),
        [tensor(3, 4), idx([[3, 1], [3, 0]]), tensor(2, 2), scalar(-1)],
        id="prod",
    ),
    OpCase(OneHot(axis=-1), [np.array([0, 2, 1, 3], np.int64), scalar(4), const(np.float32(1)), const(np.float32(0))]),
    OpCase(
        OneHot(axis=0),
        [idx([[1, 0], [2, 5]], np.int32), scalar(3), const(np.float32(2.5)), const(np.float32(-1))],
        id="axis0_out_of_range",
    ),
    # OpenVINO's IR reader rejects a CumSum without its axis input, so front ends always give one.
    OpCase(CumSum(), [tensor(3, 4), scalar(1)], id="axis"),
    OpCase(CumSum(exclusive=True, reverse=True), [tensor(3, 4), scalar(-1)], id="exclusive_reverse"),
    OpCase(TopK_v1(axis=1), [tensor(3, 6), scalar(2)]),
    OpCase(TopK_v3(axis=0, mode="min", index_element_type=ElementType.i64), [tensor(5, 3), scalar(3)]),
    OpCase(TopK(axis=-1), [tensor(2, 7), scalar(3)], id="max_value"),
    OpCase(TopK(axis=1, sort="index"), [tensor(2, 7), scalar(4)], id="sort_index"),
    OpCase(TopK(axis=1, mode="min", stable=True), [np.float32([[3, 1, 2, 1, 1, 0]]), scalar(4)], id="stable_ties"),
    OpCase(NonZero(), [np.float32([[0, 1.5, 0], [2, 0, -1]])]),
    OpCase(NonZero(output_type=ElementType.i32), [np.array([True, False, True])], id="i32"),
    OpCase(Unique(), [np.float32([3, 1, 3, 2, 1, 5])], id="sorted"),
    OpCase(Unique(sorted=False), [np.float32([3, 1, 3, 2, 1, 5])], id="unsorted"),
    OpCase(Unique(), [np.float32([[1, 2], [3, 4], [1, 2]]), scalar(0)], id="axis"),
    OpCase(Bucketize(), [np.float32([-1, 0, 0.5, 1, 2.5, 9]), const(np.float32([0, 1, 2]))]),
    OpCase(
        Bucketize(with_right_bound=False, output_type=ElementType.i32),
        [np.float32([-1, 0, 0.5, 1, 2.5, 9]), const(np.float32([0, 1, 2]))],
        id="left",
    ),
    OpCase(SearchSorted(), [const(np.float32([0, 1, 1, 2, 5])), np.float32([[1, 3], [-1, 6]])]),
    OpCase(
        SearchSorted(right_mode=True),
        [const(np.float32([[0, 1, 2], [1, 1, 4]])), np.float32([[1, 3], [1, 0]])],
        id="right_batched",
    ),
]
