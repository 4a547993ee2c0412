"""Cases for the shape family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv.types import ElementType
from irconv_opset import (
    Broadcast,
    Broadcast_v1,
    Concat,
    Convert,
    ConvertLike,
    Identity,
    Range,
    Range_v1,
    Reshape,
    Select,
    ShapeOf,
    ShapeOf_v1,
    Split,
    Squeeze,
    Squeeze_v1,
    Tile,
    Transpose,
    Unsqueeze,
    VariadicSplit,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(15)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i64(*values: int) -> object:
    return const(np.array(values, np.int64))


def scalar(value: int) -> object:
    return const(np.array(value, np.int64))


# truncation, negative values, and values beyond the 32-bit range (implementation-defined
# in the spec; these pin the CPU plugin's behaviour)
OUT_OF_RANGE = np.float32([-300.7, -1.5, -0.5, 0.5, 1.5, 254.6, 300.2, 70000.5, 3e9, -3e9, np.nan, np.inf])

CASES: list[OpCase] = [
    OpCase(Reshape(), [tensor(2, 3, 4), i64(6, 4)], id="plain"),
    OpCase(Reshape(), [tensor(2, 3, 4), i64(-1, 2)], id="minus_one"),
    OpCase(Reshape(special_zero=True), [tensor(2, 3, 4), i64(0, -1)], id="special_zero"),
    OpCase(Reshape(special_zero=True), [tensor(2, 3, 4), i64(0, 0, 2, 2)], id="special_zero_keep"),
    OpCase(Transpose(), [tensor(2, 3, 4), i64(2, 0, 1)]),
    OpCase(Concat(axis=1), [tensor(2, 3), tensor(2, 5), tensor(2, 1)]),
    OpCase(Concat(axis=-1), [tensor(2, 3, 2), const(tensor(2, 3, 4))], id="negative_axis"),
    OpCase(Split(num_splits=3), [tensor(2, 6, 4), scalar(1)]),
    OpCase(Split(num_splits=2), [tensor(2, 6, 4), scalar(-1)], id="negative_axis"),
    OpCase(VariadicSplit(), [tensor(2, 7), scalar(1), i64(2, -1, 1)]),
    OpCase(VariadicSplit(), [tensor(6, 3), scalar(0), i64(1, 5)], id="axis0"),
    OpCase(Squeeze_v1(), [tensor(1, 3, 1, 4), i64(0, 2)]),
    OpCase(Squeeze_v1(), [tensor(1, 3, 1, 4)], id="all", dynamic=False),
    OpCase(Squeeze(), [tensor(1, 3, 1, 4), i64(-2)]),
    OpCase(Squeeze(allow_axis_skip=True), [tensor(1, 3, 1, 4), i64(0, 1)], id="skip", dynamic=False),
    OpCase(Unsqueeze(), [tensor(3, 4), i64(0, 3)]),
    OpCase(Unsqueeze(), [tensor(3, 4), i64(-1)], id="negative"),
    OpCase(ShapeOf_v1(), [tensor(2, 3, 4)]),
    OpCase(ShapeOf(), [tensor(2, 3, 4)], id="i64"),
    OpCase(ShapeOf(output_type=ElementType.i32), [tensor(5, 1)], id="i32"),
    OpCase(Broadcast(), [tensor(3, 1), i64(2, 3, 4)], id="numpy"),
    OpCase(Broadcast(mode="bidirectional"), [tensor(3, 1), i64(2, 1, 4)], id="bidirectional"),
    OpCase(Broadcast(mode="explicit"), [tensor(3), i64(2, 3, 4), i64(1)], id="explicit"),
    OpCase(Broadcast_v1(), [tensor(4), i64(2, 3, 4)], id="numpy"),
    OpCase(Broadcast_v1(mode="explicit"), [tensor(2, 4), i64(2, 3, 4), i64(0, 2)], id="explicit"),
    OpCase(Tile(), [tensor(2, 3), i64(2, 1)]),
    OpCase(Tile(), [tensor(2, 3), i64(2, 1, 3)], id="longer_repeats"),
    OpCase(Convert(destination_type=ElementType.i32), [tensor(3, 4) * 10], id="f32_to_i32"),
    OpCase(Convert(destination_type=ElementType.f32), [rng.integers(-9, 9, (3, 4)).astype(np.int64)], id="i64_to_f32"),
    OpCase(Convert(destination_type=ElementType.boolean), [np.float32([0, 1, -2, 0.5, np.nan])], id="to_bool"),
    # with dynamic shapes the CPU plugin saturates to u8 instead of wrapping
    OpCase(Convert(destination_type=ElementType.u8), [OUT_OF_RANGE], id="f32_to_u8_wraps", dynamic=False),
    OpCase(Convert(destination_type=ElementType.i16), [OUT_OF_RANGE], id="f32_to_i16_wraps"),
    OpCase(Convert(destination_type=ElementType.i32), [OUT_OF_RANGE], id="f32_to_i32_overflow"),
    OpCase(Convert(destination_type=ElementType.i64), [OUT_OF_RANGE], id="f32_to_i64_overflow"),
    OpCase(Convert(destination_type=ElementType.u32), [OUT_OF_RANGE], id="f32_to_u32"),
    OpCase(Convert(destination_type=ElementType.u8), [np.array([300, -1, 5], np.int64)], id="i64_to_u8"),
    OpCase(Convert(destination_type=ElementType.f16), [tensor(3, 4)], id="to_f16", rtol=1e-3, atol=1e-3),
    OpCase(ConvertLike(), [tensor(3, 4) * 10, const(np.zeros(1, np.int64))]),
    OpCase(Select(), [rng.random((2, 3)) < 0.5, tensor(2, 3), tensor(2, 3)]),
    OpCase(Select(), [rng.random((3,)) < 0.5, tensor(2, 3), tensor(1)], id="broadcast"),
    OpCase(Range(), [scalar(2), scalar(11), scalar(3)], id="i64"),
    OpCase(
        Range(output_type=ElementType.f32),
        [const(np.float32(0.5)), const(np.float32(3.0)), const(np.float32(0.5))],
        id="f32",
    ),
    OpCase(Range(), [np.array(1, np.int64), np.array(9, np.int64), np.array(2, np.int64)], id="runtime"),
    OpCase(Range_v1(), [scalar(10), scalar(0), scalar(-2)]),
    OpCase(Identity(), [tensor(2, 3)]),
]
