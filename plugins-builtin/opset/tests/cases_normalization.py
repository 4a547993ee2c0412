"""Cases for the normalization family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    GRN,
    LRN,
    MVN,
    BatchNormInference,
    BatchNormInference_v1,
    GroupNormalization,
    MVN_v1,
    NormalizeL2,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(14)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def positive(*shape: int) -> np.ndarray:
    return rng.uniform(0.5, 2.0, shape).astype(np.float32)


def axes(*values: int) -> object:
    return const(np.array(values, np.int64))


TOL = {"rtol": 1e-4, "atol": 1e-4}

CASES: list[OpCase] = [
    OpCase(MVN_v1(eps=1e-5), [tensor(2, 3, 4, 5)], id="spatial", **TOL),
    OpCase(MVN_v1(across_channels=True, eps=1e-5), [tensor(2, 3, 4, 5)], id="across", **TOL),
    OpCase(MVN_v1(normalize_variance=False), [tensor(2, 3, 4)], id="mean_only", **TOL),
    OpCase(MVN(eps=1e-5), [tensor(2, 3, 4, 5), axes(2, 3)], id="inside", **TOL),
    OpCase(MVN(eps=1e-3, eps_mode="outside_sqrt"), [tensor(2, 3, 8), axes(-1)], id="outside", **TOL),
    OpCase(MVN(normalize_variance=False), [tensor(2, 3, 8), axes(1, 2)], id="mean_only", **TOL),
    OpCase(NormalizeL2(eps=1e-6), [tensor(2, 3, 4), axes(1)], id="add", **TOL),
    OpCase(NormalizeL2(eps=1e-6, eps_mode="max"), [tensor(2, 3, 4), axes(1, 2)], id="max", **TOL),
    OpCase(LRN(alpha=1e-2, beta=0.75, bias=1.0, size=3), [tensor(1, 6, 4, 4), axes(1)], id="across_channels", **TOL),
    OpCase(LRN(alpha=1e-2, beta=0.5, bias=2.0, size=3), [tensor(1, 2, 5, 5), axes(2, 3)], id="spatial", **TOL),
    OpCase(GRN(bias=1e-3), [tensor(2, 4, 3, 3)], **TOL),
    OpCase(GroupNormalization(num_groups=2, epsilon=1e-5), [tensor(2, 4, 3, 3), tensor(4), tensor(4)], **TOL),
    OpCase(
        BatchNormInference_v1(epsilon=1e-3),
        [const(tensor(3)), const(tensor(3)), tensor(2, 3, 4, 4), const(tensor(3)), const(positive(3))],
        **TOL,
    ),
    OpCase(
        BatchNormInference(epsilon=1e-3),
        [tensor(2, 3, 4, 4), const(tensor(3)), const(tensor(3)), const(tensor(3)), const(positive(3))],
        **TOL,
    ),
    OpCase(BatchNormInference(), [tensor(4, 3), tensor(3), tensor(3), tensor(3), positive(3)], id="2d", **TOL),
]
