"""Cases for ConvertPromoteTypes, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv.types import ElementType
from irconv_opset import ConvertPromoteTypes
from irconv_opset.testing import OpCase

rng = np.random.default_rng(23)

CASES: list[OpCase] = [
    OpCase(
        ConvertPromoteTypes(),
        [rng.integers(0, 200, (2, 3)).astype(np.uint8), rng.standard_normal(3).astype(np.float32)],
    ),
    OpCase(
        ConvertPromoteTypes(), [np.array([True, False]), rng.integers(-9, 9, (2, 2)).astype(np.int32)], id="bool_int"
    ),
    OpCase(
        ConvertPromoteTypes(promote_unsafe=True),
        [rng.integers(0, 200, 4).astype(np.uint8), rng.integers(-100, 100, 4).astype(np.int8)],
        id="unsafe_u8_i8",
    ),
    OpCase(
        ConvertPromoteTypes(promote_unsafe=True, u64_integer_promotion_target=ElementType.f32),
        [rng.integers(0, 1000, 3).astype(np.int32), rng.standard_normal(3).astype(np.float32)],
        id="unsafe_i32_f32",
    ),
]
