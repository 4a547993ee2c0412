"""Cases for ExtractImagePatches and Col2Im, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import Col2Im, ExtractImagePatches
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(21)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i64(*values: int) -> object:
    return const(np.array(values, np.int64))


CASES: list[OpCase] = [
    OpCase(ExtractImagePatches(sizes=[2, 2], strides=[2, 2], rates=[1, 1]), [tensor(1, 2, 6, 6)], id="valid"),
    OpCase(ExtractImagePatches(sizes=[3, 2], strides=[2, 1], rates=[2, 1]), [tensor(2, 3, 9, 5)], id="rates"),
    OpCase(
        ExtractImagePatches(sizes=[3, 3], strides=[2, 2], rates=[1, 1], auto_pad="same_upper"),
        [tensor(1, 2, 5, 6)],
        id="same_upper",
    ),
    OpCase(
        ExtractImagePatches(sizes=[2, 2], strides=[3, 3], rates=[1, 1], auto_pad="same_lower"),
        [tensor(1, 1, 7, 8)],
        id="same_lower",
    ),
    OpCase(Col2Im(), [tensor(1, 12, 9), i64(4, 4), i64(2, 2)], id="plain"),
    OpCase(
        Col2Im(strides=[2, 1], dilations=[1, 2], pads_begin=[1, 0], pads_end=[1, 2]),
        [tensor(2, 8, 18), i64(5, 6), i64(2, 2)],
        id="strided_padded",
    ),
    OpCase(Col2Im(), [tensor(12, 9), i64(4, 4), i64(2, 2)], id="unbatched"),
]
