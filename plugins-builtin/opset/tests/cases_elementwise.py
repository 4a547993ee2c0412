"""Cases for the binary elementwise family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    Add,
    BitwiseAnd,
    BitwiseLeftShift,
    BitwiseNot,
    BitwiseOr,
    BitwiseRightShift,
    BitwiseXor,
    Divide,
    Equal,
    FloorMod,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    LogicalAnd,
    LogicalNot,
    LogicalOr,
    LogicalXor,
    Maximum,
    Minimum,
    Mod,
    Multiply,
    NotEqual,
    Power,
    SquaredDifference,
    Subtract,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(11)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def positive(*shape: int) -> np.ndarray:
    return rng.uniform(0.5, 2.0, shape).astype(np.float32)


def ints(*shape: int, low: int = -9, high: int = 10, dtype: type = np.int32) -> np.ndarray:
    return rng.integers(low, high, shape).astype(dtype)


def nonzero_ints(*shape: int, dtype: type = np.int32) -> np.ndarray:
    values = ints(*shape, dtype=dtype)
    return np.where(values == 0, 3, values).astype(dtype)


def bools(*shape: int) -> np.ndarray:
    return rng.integers(0, 2, shape).astype(np.bool_)


def small_ints(*shape: int) -> np.ndarray:
    """Values with many repeats so that comparisons see equal pairs."""
    return rng.integers(-2, 3, shape).astype(np.float32)


CASES: list[OpCase] = [
    OpCase(Add(), [tensor(2, 3, 4), tensor(2, 3, 4)], id="same"),
    OpCase(Add(), [tensor(2, 1, 4), tensor(3, 1)], id="broadcast"),
    OpCase(Add(), [ints(2, 3), const(ints(3))], id="int_const"),
    OpCase(Add(auto_broadcast="none"), [tensor(2, 3), tensor(2, 3)], id="none"),
    OpCase(Multiply(auto_broadcast="pdpd"), [tensor(2, 3, 4, 5), tensor(2, 3)], id="pdpd"),
    # (Subtract with pdpd fails inside the CPU plugin's ConvertSubtract pass.)
    OpCase(Add(auto_broadcast="pdpd"), [tensor(2, 3, 4), tensor(2, 1)], id="pdpd_ones"),
    OpCase(Subtract(), [tensor(4, 1, 5), tensor(3, 5)]),
    OpCase(Multiply(), [tensor(2, 3, 4), const(tensor(4))]),
    OpCase(Multiply(), [ints(3, 4, dtype=np.int64), ints(3, 4, dtype=np.int64)], id="i64"),
    OpCase(Divide(), [tensor(2, 3), positive(2, 3)], id="float"),
    # The CPU kernel truncates integer division even with m_pythondiv; OpenVINO's own
    # constant folding floors as the spec says, so the floor case runs on Consts.
    OpCase(Divide(), [ints(4, 5, low=0), ints(4, 5, low=1)], id="int_positive"),
    OpCase(Divide(), [const(ints(4, 5)), const(nonzero_ints(4, 5))], id="int_python_const"),
    OpCase(Divide(m_pythondiv=False), [ints(4, 5), nonzero_ints(4, 5)], id="int_truncate"),
    OpCase(Power(), [positive(3, 4), tensor(3, 4)], id="float", rtol=1e-4),
    OpCase(Power(), [ints(3, 4, low=-3, high=4), const(np.array([0, 1, 2, 3], np.int32))], id="int"),
    OpCase(Maximum(), [tensor(2, 3), tensor(1, 3)]),
    OpCase(Minimum(), [tensor(2, 3), tensor(2, 1)]),
    OpCase(SquaredDifference(), [tensor(3, 4), tensor(4)]),
    OpCase(FloorMod(), [tensor(3, 4) * 5, positive(3, 4)], id="float", rtol=1e-5, atol=1e-5),
    OpCase(FloorMod(), [ints(3, 4), nonzero_ints(3, 4)], id="int"),
    OpCase(Mod(), [tensor(3, 4) * 5, positive(3, 4)], id="float", rtol=1e-5, atol=1e-5),
    OpCase(Mod(), [ints(3, 4), nonzero_ints(3, 4)], id="int"),
    OpCase(Equal(), [small_ints(3, 4), small_ints(3, 4)]),
    OpCase(NotEqual(), [small_ints(3, 4), small_ints(4)]),
    OpCase(Less(), [small_ints(2, 3), small_ints(2, 3)]),
    OpCase(LessEqual(), [small_ints(2, 3), small_ints(2, 3)]),
    OpCase(Greater(), [small_ints(2, 3), small_ints(1, 3)]),
    OpCase(GreaterEqual(), [ints(2, 3), ints(2, 3)]),
    OpCase(LogicalAnd(), [bools(2, 3), bools(2, 3)]),
    OpCase(LogicalOr(), [bools(2, 3), bools(3)]),
    OpCase(LogicalXor(), [bools(4, 1), bools(1, 5)]),
    OpCase(LogicalNot(), [bools(3, 4)]),
    OpCase(BitwiseAnd(), [ints(3, 4), ints(3, 4)], id="int"),
    OpCase(BitwiseAnd(), [bools(3, 4), bools(3, 4)], id="bool"),
    OpCase(BitwiseOr(), [ints(3, 4, dtype=np.uint8, low=0, high=255), ints(4, dtype=np.uint8, low=0, high=255)]),
    OpCase(BitwiseXor(), [ints(3, 4), ints(3, 4)]),
    OpCase(BitwiseNot(), [ints(3, 4)], id="int"),
    OpCase(BitwiseNot(), [bools(3, 4)], id="bool"),
    OpCase(BitwiseLeftShift(), [ints(3, 4, low=0, high=100), ints(3, 4, low=0, high=8)]),
    OpCase(BitwiseRightShift(), [ints(3, 4, low=0, high=1000), ints(3, 4, low=0, high=8)]),
]

# Equal shapes, which every auto_broadcast value accepts: the inputs the one-op compile sweep
# (irconv_opset.sweep) gives "none" and "pdpd" on the ops whose case above broadcasts.
CASES += [
    OpCase(op, [make(2, 3), make(2, 3)], id="same_shapes")
    for op, make in [
        (Subtract(), tensor),
        (Maximum(), tensor),
        (Minimum(), tensor),
        (SquaredDifference(), tensor),
        (NotEqual(), small_ints),
        (Greater(), small_ints),
        (LogicalOr(), bools),
        (LogicalXor(), bools),
        (BitwiseOr(), lambda *shape: ints(*shape, dtype=np.uint8, low=0, high=255)),
    ]
]
