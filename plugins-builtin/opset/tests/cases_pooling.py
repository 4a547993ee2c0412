"""Cases for the pooling family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    AdaptiveAvgPool,
    AdaptiveMaxPool,
    AvgPool,
    AvgPool_v1,
    AvgPool_v14,
    MaxPool,
    MaxPool_v1,
    MaxPool_v8,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(11)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def window(kernel, strides, pads_begin, pads_end, **extra):  # type: ignore[no-untyped-def]
    return dict(kernel=kernel, strides=strides, pads_begin=pads_begin, pads_end=pads_end, **extra)


CASES: list[OpCase] = [
    OpCase(MaxPool_v1(**window((2, 2), (2, 2), (0, 0), (0, 0))), [tensor(1, 3, 8, 8)], id="maxpool1_2x2"),
    OpCase(
        MaxPool_v1(**window((3, 3), (2, 2), (0, 0), (0, 0), rounding_type="ceil")),
        [tensor(1, 2, 8, 9)],
        id="maxpool1_ceil",
    ),
    OpCase(
        MaxPool_v1(**window((3, 3), (2, 2), (0, 0), (0, 0), auto_pad="same_upper")),
        [tensor(1, 2, 7, 8)],
        id="maxpool1_same",
    ),
    OpCase(
        MaxPool_v8(**window((3, 3), (1, 1), (1, 1), (1, 1), dilations=(2, 2))),
        [tensor(2, 3, 9, 9)],
        id="maxpool8_dilated",
    ),
    OpCase(
        MaxPool_v8(**window((3, 2), (2, 2), (1, 0), (0, 1), dilations=(1, 1), rounding_type="ceil", axis=2)),
        [tensor(2, 3, 8, 9)],
        id="maxpool8_ceil_axis2",
    ),
    OpCase(
        MaxPool_v8(**window((2,), (2,), (0,), (0,), dilations=(1,), index_element_type="i32")),
        [tensor(1, 2, 9)],
        id="maxpool8_1d_i32",
    ),
    OpCase(
        MaxPool(**window((3, 3), (2, 2), (1, 1), (1, 1), dilations=(1, 1), rounding_type="ceil_torch")),
        [tensor(1, 2, 7, 7)],
        id="maxpool14_ceil_torch",
    ),
    OpCase(
        MaxPool(**window((2, 2, 2), (2, 2, 2), (0, 0, 0), (0, 0, 0), dilations=(1, 1, 1), auto_pad="valid")),
        [tensor(1, 2, 5, 6, 7)],
        id="maxpool14_3d_valid",
    ),
    OpCase(
        MaxPool(**window((3, 3), (2, 2), (1, 1), (1, 1), dilations=(1, 1), index_element_type="i32")),
        [rng.integers(-50, 50, (1, 2, 7, 7)).astype(np.int32)],
        id="maxpool14_int32_padded",
    ),
    # "same" pads, then ceil rounding: a last window may start past the derived pads.
    OpCase(
        MaxPool(
            **window((1, 2), (2, 3), (0, 0), (0, 0), dilations=(1, 1), auto_pad="same_upper", rounding_type="ceil")
        ),
        [tensor(1, 2, 12, 10)],
        id="maxpool14_same_upper_ceil",
    ),
    OpCase(
        AvgPool(
            **window((1, 3), (2, 2), (0, 0), (0, 0), dilations=(2, 1), auto_pad="same_lower", rounding_type="ceil")
        ),
        [tensor(1, 2, 12, 9)],
        id="avgpool16_same_lower_ceil",
    ),
    OpCase(AvgPool_v1(**window((2, 2), (2, 2), (0, 0), (0, 0))), [tensor(1, 3, 8, 8)], id="avgpool1_2x2"),
    OpCase(
        AvgPool_v1(**window((3, 3), (1, 1), (1, 1), (1, 1), exclude_pad=False)),
        [tensor(1, 2, 6, 6)],
        id="avgpool1_count_pad",
    ),
    OpCase(
        AvgPool_v1(**window((3, 3), (2, 2), (1, 1), (1, 1), exclude_pad=True, rounding_type="ceil")),
        [tensor(1, 2, 8, 8)],
        id="avgpool1_exclude_pad_ceil",
    ),
    OpCase(
        AvgPool_v1(**window((3, 3), (2, 2), (0, 0), (0, 0), exclude_pad=False, rounding_type="ceil")),
        [tensor(1, 2, 8, 8)],
        id="avgpool1_count_pad_ceil",
    ),
    OpCase(
        AvgPool_v14(**window((3, 3), (2, 2), (1, 1), (1, 1), exclude_pad=False, rounding_type="ceil_torch")),
        [tensor(1, 2, 7, 7)],
        id="avgpool14_ceil_torch_count_pad",
    ),
    OpCase(
        AvgPool(**window((3, 3), (1, 2), (2, 1), (2, 1), dilations=(2, 1), exclude_pad=True)),
        [tensor(1, 2, 9, 8)],
        id="avgpool16_dilated_exclude_pad",
    ),
    OpCase(
        AvgPool(**window((2, 2, 2), (1, 1, 1), (1, 1, 1), (1, 1, 1), dilations=(2, 2, 2), exclude_pad=False)),
        [tensor(1, 2, 5, 6, 5)],
        id="avgpool16_3d_dilated_count_pad",
    ),
    OpCase(
        AvgPool(**window((3, 3), (2, 2), (1, 1), (1, 1), exclude_pad=True, rounding_type="ceil_torch")),
        [tensor(1, 2, 7, 7)],
        id="avgpool14_ceil_torch",
    ),
    OpCase(
        AvgPool(**window((2, 3), (1, 2), (0, 0), (0, 0), auto_pad="same_lower", exclude_pad=True)),
        [tensor(1, 2, 5, 7)],
        id="avgpool14_same_lower",
    ),
    OpCase(
        AvgPool(**window((3, 2), (2, 2), (0, 0), (0, 0), auto_pad="same_upper", exclude_pad=False)),
        [tensor(1, 2, 7, 6)],
        id="avgpool14_same_upper_count_pad",
    ),
    OpCase(
        AvgPool(**window((3, 3), (2, 2), (1, 0), (0, 1), exclude_pad=False, rounding_type="ceil_torch")),
        [tensor(1, 2, 8, 7)],
        id="avgpool14_asym_pads_ceil_torch_count_pad",
    ),
    OpCase(
        MaxPool(**window((2, 3), (2, 1), (0, 0), (0, 0), dilations=(2, 2), auto_pad="same_lower", axis=1)),
        [tensor(2, 2, 7, 6)],
        id="maxpool14_same_lower_dilated_axis1",
        dynamic=False,  # the CPU plugin's dynamic-shape path pads dilated same_lower windows differently
    ),
    OpCase(AdaptiveAvgPool(), [tensor(1, 3, 7, 9), const(np.array([3, 4], np.int64))], id="adaptive_avg_2d"),
    OpCase(AdaptiveAvgPool(), [tensor(2, 3, 10), const(np.array([4], np.int32))], id="adaptive_avg_1d"),
    # The CPU plugin cannot compile AdaptiveMaxPool with i64 indices (the default): i32 here.
    OpCase(
        AdaptiveMaxPool(index_element_type="i32"),
        [tensor(1, 3, 7, 9), const(np.array([3, 4], np.int64))],
        id="adaptive_max_2d_i32",
    ),
    OpCase(
        AdaptiveMaxPool(index_element_type="i32"),
        [tensor(1, 2, 5, 6, 7), const(np.array([2, 3, 3], np.int64))],
        id="adaptive_max_3d_i32",
    ),
]
