"""Cases for slicing, padding and block rearrangement ops, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    BatchToSpace,
    DepthToSpace,
    Pad,
    Pad_v1,
    Reverse,
    ReverseSequence,
    Roll,
    ShuffleChannels,
    Slice,
    SliceScatter,
    SpaceToBatch,
    SpaceToDepth,
    StridedSlice,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(16)
BIG = np.iinfo(np.int64).max


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i64(*values: int) -> object:
    return const(np.array(values, np.int64))


CASES: list[OpCase] = [
    OpCase(StridedSlice(begin_mask=[0, 0], end_mask=[0, 0]), [tensor(5, 6), i64(1, 0), i64(4, 6), i64(1, 2)]),
    OpCase(
        StridedSlice(begin_mask=[1, 0, 0], end_mask=[1, 0, 1]),
        [tensor(3, 6, 4), i64(0, -4, 1), i64(0, -1, 0), i64(1, 1, 1)],
        id="masks",
    ),
    OpCase(
        StridedSlice(begin_mask=[0, 0, 0], end_mask=[0, 0, 0], new_axis_mask=[1, 0, 0], shrink_axis_mask=[0, 1, 0]),
        [tensor(3, 4), i64(0, 2, 0), i64(0, 3, 4), i64(1, 1, 1)],
        id="new_and_shrink",
    ),
    # The CPU kernel returns garbage for this shorter spelling; OpenVINO's constant folding agrees with us.
    OpCase(
        StridedSlice(begin_mask=[0, 0], end_mask=[0, 0], new_axis_mask=[1, 0], shrink_axis_mask=[0, 1]),
        [const(tensor(3, 4)), i64(0, 2), i64(0, 3), i64(1, 1)],
        id="new_and_shrink_short_const",
    ),
    OpCase(
        StridedSlice(begin_mask=[0, 0], end_mask=[0, 0], ellipsis_mask=[1, 0]),
        [tensor(2, 3, 6), i64(0, 1), i64(0, 5), i64(1, 2)],
        id="ellipsis",
    ),
    OpCase(
        StridedSlice(begin_mask=[1], end_mask=[1]),
        [tensor(6, 2), i64(0), i64(0), i64(-1)],
        id="reverse",
    ),
    OpCase(
        StridedSlice(begin_mask=[1, 0], end_mask=[1, 0]),
        [tensor(3, 8), np.array([0, 2], np.int64), np.array([0, 7], np.int64), i64(1, 2)],
        id="runtime_bounds",
    ),
    OpCase(Slice(), [tensor(5, 6), i64(1, 0), i64(4, 6), i64(1, 2)]),
    OpCase(
        Slice(),
        [tensor(4, 6, 3), np.array([1], np.int64), np.array([5], np.int64), np.array([2], np.int64), i64(1)],
        id="runtime_bounds",
    ),
    OpCase(Slice(), [tensor(4, 6, 3), i64(-1), i64(-BIG), i64(-2), i64(1)], id="negative_step_axes"),
    OpCase(Slice(), [tensor(4, 6), i64(1), i64(BIG), i64(1), i64(0)], id="to_end"),
    OpCase(SliceScatter(), [tensor(5, 6), tensor(3, 3), i64(1, 0), i64(4, 6), i64(1, 2)]),
    OpCase(SliceScatter(), [tensor(4, 6), tensor(4, 2), i64(-1), i64(-BIG), i64(-3), i64(1)], id="negative_step_axes"),
    OpCase(Pad(), [tensor(2, 3), i64(1, 0), i64(0, 2)], id="constant"),
    OpCase(Pad(), [tensor(2, 3), i64(1, 2), i64(1, 0), const(np.float32(7.5))], id="value"),
    OpCase(Pad(pad_mode="edge"), [tensor(3, 4), i64(1, 2), i64(2, 1)], id="edge"),
    OpCase(Pad(pad_mode="reflect"), [tensor(3, 4), i64(2, 1), i64(1, 3)], id="reflect"),
    OpCase(Pad(pad_mode="symmetric"), [tensor(3, 4), i64(2, 1), i64(1, 3)], id="symmetric"),
    OpCase(Pad(), [tensor(4, 5), i64(-1, 2), i64(1, -2)], id="negative"),
    OpCase(Pad_v1(), [tensor(2, 3), i64(1, 1), i64(0, 2), const(np.float32(-1.0))]),
    OpCase(DepthToSpace(block_size=2), [tensor(1, 8, 2, 3)], id="blocks_first"),
    OpCase(DepthToSpace(block_size=2, mode="depth_first"), [tensor(2, 8, 3, 2)], id="depth_first"),
    OpCase(SpaceToDepth(block_size=2), [tensor(1, 2, 4, 6)], id="blocks_first"),
    OpCase(SpaceToDepth(block_size=2, mode="depth_first"), [tensor(2, 3, 4, 2)], id="depth_first"),
    OpCase(ShuffleChannels(axis=1, group=3), [tensor(2, 6, 2, 2)]),
    OpCase(ShuffleChannels(axis=-1, group=2), [tensor(3, 4)], id="last_axis"),
    OpCase(SpaceToBatch(), [tensor(1, 2, 4, 6), i64(1, 1, 2, 3), i64(0, 0, 1, 0), i64(0, 0, 1, 0)]),
    OpCase(BatchToSpace(), [tensor(6, 2, 2, 2), i64(1, 1, 2, 3), i64(0, 0, 1, 0), i64(0, 0, 0, 2)]),
    OpCase(ReverseSequence(), [tensor(3, 5, 2), const(np.array([5, 2, 0], np.int64))]),
    OpCase(
        ReverseSequence(batch_axis=1, seq_axis=0), [tensor(4, 2, 3), const(np.array([1, 3], np.int32))], id="swapped"
    ),
    OpCase(Reverse(), [tensor(2, 3, 4), i64(0, 2)], id="index"),
    OpCase(Reverse(mode="mask"), [tensor(2, 3, 4), const(np.array([False, True, True]))], id="mask"),
    OpCase(Roll(), [tensor(3, 4), i64(1, -2), i64(0, 1)]),
    OpCase(Roll(), [tensor(3, 4, 2), const(np.array(5, np.int64)), i64(-1)], id="scalar_shift"),
]
