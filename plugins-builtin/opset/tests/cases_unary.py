"""Cases for the unary family (math, activations, SoftMax), checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    Abs,
    Acos,
    Acosh,
    Asin,
    Asinh,
    Atan,
    Atanh,
    Ceiling,
    Clamp,
    Cos,
    Cosh,
    Elu,
    Erf,
    ErfInv,
    Exp,
    Floor,
    Gelu,
    Gelu_v2,
    HardSigmoid,
    HSigmoid,
    HSwish,
    IsFinite,
    IsInf,
    IsNaN,
    Log,
    LogSoftmax,
    Mish,
    Negative,
    PReLU,
    ReLU,
    Round,
    Selu,
    Sigmoid,
    Sign,
    Sin,
    Sinh,
    SoftMax,
    SoftMax_v1,
    SoftPlus,
    SoftSign,
    Sqrt,
    Swish,
    Tan,
    Tanh,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(12)


def tensor(*shape: int, scale: float = 2.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def uniform(low: float, high: float, *shape: int) -> np.ndarray:
    return rng.uniform(low, high, shape).astype(np.float32)


def ints(*shape: int) -> np.ndarray:
    return rng.integers(-20, 20, shape).astype(np.int32)


def special(*shape: int) -> np.ndarray:
    """Finite values mixed with nan and both infinities."""
    x = tensor(*shape)
    flat = x.reshape(-1)
    flat[::4] = np.nan
    flat[1::5] = np.inf
    flat[2::7] = -np.inf
    return x


def halves(*shape: int) -> np.ndarray:
    """Values ending in .5 (rounding ties) mixed with others."""
    return (rng.integers(-10, 10, shape) + rng.choice([0.5, 0.25, 0.75], shape)).astype(np.float32)


TOL = {"rtol": 1e-4, "atol": 1e-5}

CASES: list[OpCase] = [
    OpCase(Abs(), [tensor(2, 3, 4)]),
    OpCase(Abs(), [ints(3, 4)], id="int"),
    OpCase(Negative(), [tensor(2, 3)]),
    OpCase(Negative(), [ints(2, 3)], id="int"),
    OpCase(Sign(), [np.array([-2.0, 0.0, 3.0, -0.5], np.float32)]),
    OpCase(Floor(), [tensor(3, 4)]),
    OpCase(Ceiling(), [tensor(3, 4)]),
    OpCase(Round(), [halves(3, 4)], id="half_to_even"),
    OpCase(Round(mode="half_away_from_zero"), [halves(3, 4)], id="half_away_from_zero"),
    OpCase(Sqrt(), [uniform(0.1, 5, 3, 4)], **TOL),
    OpCase(Exp(), [tensor(3, 4, scale=1.0)], **TOL),
    OpCase(Log(), [uniform(0.1, 5, 3, 4)], **TOL),
    OpCase(Erf(), [tensor(3, 4, scale=1.0)], **TOL),
    OpCase(ErfInv(), [uniform(-0.99, 0.99, 3, 4)], **TOL),
    OpCase(Sin(), [tensor(3, 4)], **TOL),
    OpCase(Cos(), [tensor(3, 4)], **TOL),
    OpCase(Tan(), [uniform(-1.2, 1.2, 3, 4)], **TOL),
    OpCase(Asin(), [uniform(-0.9, 0.9, 3, 4)], **TOL),
    OpCase(Acos(), [uniform(-0.9, 0.9, 3, 4)], **TOL),
    OpCase(Atan(), [tensor(3, 4)], **TOL),
    OpCase(Sinh(), [tensor(3, 4, scale=1.0)], **TOL),
    OpCase(Cosh(), [tensor(3, 4, scale=1.0)], **TOL),
    OpCase(Tanh(), [tensor(3, 4)], **TOL),
    OpCase(Asinh(), [tensor(3, 4)], **TOL),
    OpCase(Acosh(), [uniform(1.1, 5, 3, 4)], **TOL),
    OpCase(Atanh(), [uniform(-0.9, 0.9, 3, 4)], **TOL),
    OpCase(IsNaN(), [special(3, 5)]),
    OpCase(IsFinite(), [special(3, 5)]),
    OpCase(IsInf(), [special(3, 5)], id="both"),
    OpCase(IsInf(detect_negative=False), [special(3, 5)], id="positive"),
    OpCase(IsInf(detect_positive=False), [special(3, 5)], id="negative"),
    OpCase(ReLU(), [tensor(2, 3, 4)]),
    OpCase(Sigmoid(), [tensor(2, 3, 4)], **TOL),
    OpCase(Clamp(min=-0.5, max=1.5), [tensor(3, 4)]),
    OpCase(Clamp(min=-2.5, max=3.5), [ints(3, 4)], id="int"),
    OpCase(Elu(alpha=0.7), [tensor(3, 4)], **TOL),
    OpCase(Selu(), [tensor(3, 4), const(np.float32([1.67326])), const(np.float32([1.0507]))], **TOL),
    OpCase(HardSigmoid(), [tensor(3, 4), const(np.float32(0.2)), const(np.float32(0.5))]),
    OpCase(PReLU(), [tensor(2, 3, 4, 4), const(np.float32([0.1, 0.2, 0.3]))], id="channel"),
    OpCase(PReLU(), [tensor(3, 4), const(np.float32(0.25))], id="scalar"),
    OpCase(PReLU(), [tensor(2, 3, 5), tensor(3, 5)], id="broadcast"),
    OpCase(Gelu_v2(), [tensor(3, 4)], **TOL),
    OpCase(Gelu(), [tensor(3, 4)], id="erf", **TOL),
    OpCase(Gelu(approximation_mode="tanh"), [tensor(3, 4)], id="tanh", **TOL),
    OpCase(HSwish(), [tensor(3, 4)], **TOL),
    OpCase(HSigmoid(), [tensor(3, 4)], **TOL),
    OpCase(Mish(), [tensor(3, 4)], **TOL),
    OpCase(SoftPlus(), [tensor(3, 4)], **TOL),
    OpCase(SoftSign(), [tensor(3, 4)], **TOL),
    OpCase(Swish(), [tensor(3, 4)], id="default_beta", **TOL),
    OpCase(Swish(), [tensor(3, 4), const(np.float32(0.6))], id="beta", **TOL),
    OpCase(SoftMax_v1(axis=1), [tensor(2, 5, 3)], **TOL),
    OpCase(SoftMax(axis=-1), [tensor(2, 3, 6)], id="negative_axis", **TOL),
    OpCase(SoftMax(axis=0), [tensor(4, 3)], id="axis0", **TOL),
    OpCase(LogSoftmax(axis=-1), [tensor(2, 3, 6)], **TOL),
]
