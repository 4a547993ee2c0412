"""Cases for the reduction family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    ReduceL1,
    ReduceL2,
    ReduceLogicalAnd,
    ReduceLogicalOr,
    ReduceMax,
    ReduceMean,
    ReduceMin,
    ReduceProd,
    ReduceSum,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(13)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def axes(*values: int) -> object:
    return const(np.array(values, np.int64))


def bools(*shape: int, p: float = 0.5) -> np.ndarray:
    return (rng.random(shape) < p).astype(np.bool_)


TOL = {"rtol": 1e-5, "atol": 1e-5}

CASES: list[OpCase] = [
    OpCase(ReduceSum(), [tensor(2, 3, 4), axes(1)], id="axis1", **TOL),
    OpCase(ReduceSum(keep_dims=True), [tensor(2, 3, 4), axes(0, -1)], id="keep", **TOL),
    OpCase(ReduceSum(), [rng.integers(-5, 5, (3, 4)).astype(np.int32), axes(0)], id="int"),
    OpCase(ReduceSum(), [tensor(2, 3), const(np.array(1, np.int64))], id="scalar_axis", **TOL),
    OpCase(ReduceMean(keep_dims=True), [tensor(2, 3, 4, 5), axes(2, 3)], **TOL),
    OpCase(ReduceMean(), [tensor(2, 3, 4), axes(0, 1, 2)], id="all", **TOL),
    OpCase(ReduceProd(), [rng.uniform(0.5, 1.5, (2, 3, 4)).astype(np.float32), axes(1)], **TOL),
    OpCase(ReduceMax(), [tensor(2, 3, 4), axes(-1)]),
    OpCase(ReduceMin(keep_dims=True), [tensor(2, 3, 4), axes(0)]),
    OpCase(ReduceL1(), [tensor(2, 3, 4), axes(1, 2)], **TOL),
    OpCase(ReduceL2(keep_dims=True), [tensor(2, 3, 4), axes(2)], **TOL),
    OpCase(ReduceLogicalAnd(), [bools(3, 4, p=0.8), axes(1)]),
    OpCase(ReduceLogicalOr(keep_dims=True), [bools(3, 4, p=0.2), axes(0)]),
]
