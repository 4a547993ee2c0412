"""Unary ops: math functions, activations, SoftMax and LogSoftmax.

Most are shape- and type-preserving; each names its NumPy kernel and the base class
does inference and folding. Activations with tensor parameters (PReLU slope, Selu alpha
and lambda, HardSigmoid alpha and beta, Swish beta) take them as inputs, as in the spec.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from irconv.errors import LoweringError
from irconv.ops import Op, Trait, attr
from irconv.types import ElementType

from irconv_opset.rules import require_at_most, require_slope_shape
from irconv_opset.shapes import in_shape, in_type, normalize_axis, set_output

if TYPE_CHECKING:
    from irconv.graph import Node

_erf_object = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erf_object(x), dtype=np.float64)


@dataclass(eq=False)
class UnaryElementwise(Op):
    """Base of ops computing ``kernel(x)`` elementwise; output like input 0.

    Extra inputs of subclasses (Selu's alpha, Swish's beta) are scalar parameters, so the
    op commutes with any transpose of input 0.
    """

    version = 1
    arity = (1, 1)
    traits = frozenset({Trait.ELEMENTWISE, Trait.LAYOUT_AGNOSTIC})
    max_inputs: ClassVar[int] = 1  # the data; subclasses with parameter inputs say how many

    def kernel(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def infer(self, node: Node) -> None:
        require_at_most(node, self.max_inputs)
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        with np.errstate(all="ignore"):
            return [np.asarray(self.kernel(x)).astype(x.dtype, copy=False)]


@dataclass(eq=False)
class FloatFunction(UnaryElementwise):
    """A math function computed in floating point; integer inputs are computed in float64
    and rounded back, as the runtime does."""

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def kernel(self, x: np.ndarray) -> np.ndarray:
        if np.issubdtype(x.dtype, np.integer):
            return np.round(self.function(x.astype(np.float64)))
        return self.function(x)


# --------------------------------------------------------------------- math functions
@dataclass(eq=False)
class Abs(FloatFunction):
    type = "Abs"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.abs(x)


@dataclass(eq=False)
class Negative(UnaryElementwise):
    type = "Negative"

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return np.negative(x)


@dataclass(eq=False)
class Sign(UnaryElementwise):
    type = "Sign"

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return np.sign(x)


@dataclass(eq=False)
class Floor(UnaryElementwise):
    type = "Floor"

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return np.floor(x) if np.issubdtype(x.dtype, np.floating) else x


@dataclass(eq=False)
class Ceiling(UnaryElementwise):
    type = "Ceiling"

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return np.ceil(x) if np.issubdtype(x.dtype, np.floating) else x


@dataclass(eq=False)
class Round(UnaryElementwise):
    type = "Round"
    version = 5

    mode: str = attr("half_to_even", choices=("half_to_even", "half_away_from_zero"))

    def kernel(self, x: np.ndarray) -> np.ndarray:
        if not np.issubdtype(x.dtype, np.floating):
            return x
        if self.mode == "half_away_from_zero":
            return np.sign(x) * np.floor(np.abs(x) + 0.5)
        return np.round(x)


@dataclass(eq=False)
class Sqrt(FloatFunction):
    type = "Sqrt"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.sqrt(x)


@dataclass(eq=False)
class Exp(FloatFunction):
    type = "Exp"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.exp(x)


@dataclass(eq=False)
class Log(FloatFunction):
    type = "Log"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.log(x)


@dataclass(eq=False)
class Erf(FloatFunction):
    type = "Erf"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return _erf(x)


def _erfinv(y: np.ndarray) -> np.ndarray:
    """Inverse error function: Giles' single-precision approximation, refined by Newton steps."""
    y = np.asarray(y, np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        small = w - 2.5
        large = np.sqrt(w) - 3.0
        p_small = np.polyval(
            [
                2.81022636e-08,
                3.43273939e-07,
                -3.5233877e-06,
                -4.39150654e-06,
                0.00021858087,
                -0.00125372503,
                -0.00417768164,
                0.246640727,
                1.50140941,
            ],
            small,
        )
        p_large = np.polyval(
            [
                -0.000200214257,
                0.000100950558,
                0.00134934322,
                -0.00367342844,
                0.00573950773,
                -0.0076224613,
                0.00943887047,
                1.00167406,
                2.83297682,
            ],
            large,
        )
        x = np.where(w < 5.0, p_small, p_large) * y
        for _ in range(2):
            x = x - (_erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-(x**2)))
        x = np.where(np.abs(y) == 1, np.sign(y) * np.inf, x)
    return np.where(np.abs(y) > 1, np.nan, x)


@dataclass(eq=False)
class ErfInv(FloatFunction):
    type = "ErfInv"
    version = 17

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return _erfinv(x)


@dataclass(eq=False)
class Sin(FloatFunction):
    type = "Sin"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.sin(x)


@dataclass(eq=False)
class Cos(FloatFunction):
    type = "Cos"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.cos(x)


@dataclass(eq=False)
class Tan(FloatFunction):
    type = "Tan"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.tan(x)


@dataclass(eq=False)
class Asin(FloatFunction):
    type = "Asin"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.arcsin(x)


@dataclass(eq=False)
class Acos(FloatFunction):
    type = "Acos"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.arccos(x)


@dataclass(eq=False)
class Atan(FloatFunction):
    type = "Atan"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.arctan(x)


@dataclass(eq=False)
class Sinh(FloatFunction):
    type = "Sinh"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.sinh(x)


@dataclass(eq=False)
class Cosh(FloatFunction):
    type = "Cosh"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.cosh(x)


@dataclass(eq=False)
class Tanh(FloatFunction):
    type = "Tanh"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.tanh(x)


@dataclass(eq=False)
class Asinh(FloatFunction):
    type = "Asinh"
    version = 4

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.arcsinh(x)


@dataclass(eq=False)
class Acosh(FloatFunction):
    type = "Acosh"
    version = 4

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.arccosh(x)


@dataclass(eq=False)
class Atanh(FloatFunction):
    type = "Atanh"
    version = 4

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.arctanh(x)


# ------------------------------------------------------------------ floating checks
@dataclass(eq=False)
class _FloatCheck(UnaryElementwise):
    version = 10

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), ElementType.boolean)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(self.kernel(np.asarray(inputs[0])), dtype=np.bool_)]


@dataclass(eq=False)
class IsNaN(_FloatCheck):
    type = "IsNaN"

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return np.isnan(x)


@dataclass(eq=False)
class IsFinite(_FloatCheck):
    type = "IsFinite"

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return np.isfinite(x)


@dataclass(eq=False)
class IsInf(_FloatCheck):
    type = "IsInf"

    detect_negative: bool = attr(True)
    detect_positive: bool = attr(True)

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return (np.isneginf(x) & self.detect_negative) | (np.isposinf(x) & self.detect_positive)


# ---------------------------------------------------------------------- activations
@dataclass(eq=False)
class ReLU(UnaryElementwise):
    type = "ReLU"

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 0)


@dataclass(eq=False)
class Sigmoid(FloatFunction):
    type = "Sigmoid"

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-x))


@dataclass(eq=False)
class Clamp(UnaryElementwise):
    """Integer inputs clamp to ``ceil(min)``/``floor(max)``, as the spec says."""

    type = "Clamp"

    min: float = attr(0.0)
    max: float = attr(0.0)

    def kernel(self, x: np.ndarray) -> np.ndarray:
        if np.issubdtype(x.dtype, np.integer):
            return np.clip(x, math.ceil(self.min), math.floor(self.max))
        return np.clip(x, self.min, self.max)


@dataclass(eq=False)
class Elu(UnaryElementwise):
    type = "Elu"

    alpha: float = attr(1.0)

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return np.where(x > 0, x, self.alpha * (np.exp(x) - 1))


@dataclass(eq=False)
class Selu(UnaryElementwise):
    """Inputs: data, alpha, lambda."""

    type = "Selu"
    arity = (3, 3)
    max_inputs = 3

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, alpha, lam = (np.asarray(v) for v in inputs[:3])
        with np.errstate(all="ignore"):
            out = lam * np.where(x > 0, x, alpha * (np.exp(x) - 1))
        return [out.astype(x.dtype)]


@dataclass(eq=False)
class HardSigmoid(UnaryElementwise):
    """Inputs: data, alpha, beta; ``max(0, min(1, alpha * x + beta))``."""

    type = "HardSigmoid"
    arity = (3, 3)
    max_inputs = 3

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, alpha, beta = (np.asarray(v) for v in inputs[:3])
        return [np.clip(alpha * x + beta, 0, 1).astype(x.dtype)]


@dataclass(eq=False)
class PReLU(UnaryElementwise):
    """Inputs: data, slope; a 1-D slope as long as the channel dim (1) follows channels."""
    traits = frozenset({Trait.ELEMENTWISE})  # the slope broadcasts against the data

    type = "PReLU"
    arity = (2, 2)
    max_inputs = 2

    def infer(self, node: Node) -> None:
        require_slope_shape(node)
        super().infer(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, slope = np.asarray(inputs[0]), np.asarray(inputs[1])
        if slope.ndim == 1 and x.ndim >= 2 and slope.size == x.shape[1] and slope.size > 1:
            slope = slope.reshape((-1,) + (1,) * (x.ndim - 2))
        return [np.where(x < 0, x * slope, x).astype(x.dtype)]


@dataclass(eq=False)
class Gelu_v2(FloatFunction):
    type = "Gelu"
    version = 2

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


@dataclass(eq=False)
class Gelu(UnaryElementwise):
    type = "Gelu"
    version = 7

    approximation_mode: str = attr("erf", choices=("erf", "tanh"))

    def kernel(self, x: np.ndarray) -> np.ndarray:
        x64 = x.astype(np.float64)
        if self.approximation_mode.lower() == "tanh":
            return 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64**3)))
        return 0.5 * x64 * (1 + _erf(x64 / math.sqrt(2)))


@dataclass(eq=False)
class HSwish(FloatFunction):
    type = "HSwish"
    version = 4

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return x * np.clip(x + 3, 0, 6) / 6


@dataclass(eq=False)
class HSigmoid(FloatFunction):
    type = "HSigmoid"
    version = 5

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.clip(x + 3, 0, 6) / 6


@dataclass(eq=False)
class Mish(FloatFunction):
    type = "Mish"
    version = 4

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return x * np.tanh(np.logaddexp(0, x))


@dataclass(eq=False)
class SoftPlus(FloatFunction):
    type = "SoftPlus"
    version = 4

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return np.logaddexp(0, x)


@dataclass(eq=False)
class SoftSign(FloatFunction):
    type = "SoftSign"
    version = 9

    @staticmethod
    def function(x: np.ndarray) -> np.ndarray:
        return x / (1 + np.abs(x))


@dataclass(eq=False)
class Swish(UnaryElementwise):
    """Inputs: data and an optional scalar beta (default 1)."""

    type = "Swish"
    version = 4
    arity = (1, 2)
    max_inputs = 2

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        beta = np.asarray(inputs[1]) if len(inputs) > 1 else 1.0
        with np.errstate(all="ignore"):
            return [(x / (1 + np.exp(-beta * x))).astype(x.dtype)]


# ------------------------------------------------------------------------- softmax
def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


@dataclass(eq=False)
class _AlongAxis(UnaryElementwise):
    """An op normalising along ``axis``, which must name one of the input's axes (the runtime
    refuses the IR otherwise); ``NEGATIVE_AXES`` says whether it may count from the end."""

    traits = frozenset()  # normalises along an axis: not elementwise
    NEGATIVE_AXES: ClassVar[bool] = True
    axis: int

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        if shape is not None:
            if self.axis < 0 and not self.NEGATIVE_AXES:
                raise LoweringError(f"{self.describe()} takes no negative axis, got {self.axis}")
            normalize_axis(self.axis, len(shape))
        super().infer(node)


@dataclass(eq=False)
class SoftMax_v1(_AlongAxis):
    type = "SoftMax"
    version = 1
    NEGATIVE_AXES = False

    axis: int = attr(1)

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return _softmax(x, self.axis)


@dataclass(eq=False)
class SoftMax(_AlongAxis):
    """SoftMax-8 accepts negative axes."""

    type = "SoftMax"
    version = 8

    axis: int = attr(1)

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return _softmax(x, normalize_axis(self.axis, x.ndim))


@dataclass(eq=False)
class LogSoftmax(_AlongAxis):
    type = "LogSoftmax"
    version = 5

    axis: int = attr(1)

    def kernel(self, x: np.ndarray) -> np.ndarray:
        axis = normalize_axis(self.axis, x.ndim)
        shifted = x - x.max(axis=axis, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


OPS: tuple[type[Op], ...] = (
    Abs,
    Negative,
    Sign,
    Floor,
    Ceiling,
    Round,
    Sqrt,
    Exp,
    Log,
    Erf,
    ErfInv,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    IsNaN,
    IsFinite,
    IsInf,
    ReLU,
    Sigmoid,
    Clamp,
    Elu,
    Selu,
    HardSigmoid,
    PReLU,
    Gelu_v2,
    Gelu,
    HSwish,
    HSigmoid,
    Mish,
    SoftPlus,
    SoftSign,
    Swish,
    SoftMax_v1,
    SoftMax,
    LogSoftmax,
)
