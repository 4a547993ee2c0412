"""Normalizations: MVN, NormalizeL2, LRN, GRN, GroupNormalization, BatchNormInference.

All keep the data input's shape and type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.ops import Op, attr

from irconv_opset import symbol_rules
from irconv_opset.shapes import in_shape, in_type, normalize_axes, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


@dataclass(eq=False)
class _LikeData(Op):
    """Output shape and type are those of the data input (``data_input``)."""

    version = 1
    data_input = 0

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, self.data_input), in_type(node, self.data_input))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.same_as_input(node, self.data_input)


def _channel_view(param: np.ndarray, rank: int) -> np.ndarray:
    """A per-channel vector shaped to broadcast over ``[N, C, ...]``."""
    return np.asarray(param).reshape((1, -1) + (1,) * (rank - 2))


@dataclass(eq=False)
class MVN_v1(_LikeData):
    """MVN-1: statistics over all dims but batch (``across_channels``) or over spatial dims."""

    type = "MVN"
    version = 2
    arity = (1, 1)

    across_channels: bool = attr(False)
    normalize_variance: bool = attr(True)
    eps: float = attr(1e-9)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axes = tuple(range(1 if self.across_channels else 2, x.ndim))
        out = x - x.mean(axis=axes, keepdims=True)
        if self.normalize_variance:
            out = out / (np.sqrt((out**2).mean(axis=axes, keepdims=True)) + self.eps)
        return [out.astype(x.dtype)]


@dataclass(eq=False)
class MVN(_LikeData):
    """MVN-6: inputs data and axes."""

    type = "MVN"
    version = 6
    arity = (2, 2)

    normalize_variance: bool = attr(True)
    eps: float = attr(1e-9)
    eps_mode: str = attr("inside_sqrt", choices=("inside_sqrt", "outside_sqrt"))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axes = tuple(normalize_axes(np.asarray(inputs[1]).reshape(-1), x.ndim))
        out = x - x.mean(axis=axes, keepdims=True)
        if self.normalize_variance:
            var = (out**2).mean(axis=axes, keepdims=True)
            if self.eps_mode.lower() == "inside_sqrt":
                out = out / np.sqrt(var + self.eps)
            else:
                out = out / (np.sqrt(var) + self.eps)
        return [out.astype(x.dtype)]


@dataclass(eq=False)
class NormalizeL2(_LikeData):
    """Inputs data and axes; ``x / sqrt(eps_mode(sum(x^2), eps))``."""

    type = "NormalizeL2"
    arity = (2, 2)

    eps: float = attr(1e-10)
    eps_mode: str = attr("add", choices=("add", "max"))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axes = tuple(normalize_axes(np.asarray(inputs[1]).reshape(-1), x.ndim))
        sq = np.sum(x.astype(np.float64) ** 2, axis=axes, keepdims=True)
        norm = sq + self.eps if self.eps_mode == "add" else np.maximum(sq, self.eps)
        return [(x / np.sqrt(norm)).astype(x.dtype)]


@dataclass(eq=False)
class LRN(_LikeData):
    """Inputs data and axes; a window of ``size`` along each axis."""

    type = "LRN"
    arity = (2, 2)

    alpha: float = attr(1e-4)
    beta: float = attr(0.75)
    bias: float = attr(1.0)
    size: int = attr(5)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axes = normalize_axes(np.asarray(inputs[1]).reshape(-1), x.ndim)
        window = x.astype(np.float64) ** 2
        before, after = (self.size - 1) // 2, self.size // 2
        for axis in axes:
            pad = [(0, 0)] * x.ndim
            pad[axis] = (before + 1, after)
            cum = np.cumsum(np.pad(window, pad), axis=axis)
            n = x.shape[axis]
            upper = np.take(cum, np.arange(n) + before + after + 1, axis=axis)
            lower = np.take(cum, np.arange(n), axis=axis)
            window = upper - lower
        scale = self.bias + self.alpha / (self.size ** len(axes)) * window
        return [(x / scale**self.beta).astype(x.dtype)]


@dataclass(eq=False)
class GRN(_LikeData):
    """Global response normalization over the channel dim: ``x / sqrt(sum(x^2) + bias)``."""

    type = "GRN"
    arity = (1, 1)

    bias: float = attr(0.0)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        norm = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=1, keepdims=True) + self.bias)
        return [(x / norm).astype(x.dtype)]


@dataclass(eq=False)
class GroupNormalization(_LikeData):
    """Inputs data ``[N, C, ...]``, scale ``[C]``, bias ``[C]``."""

    type = "GroupNormalization"
    version = 12
    arity = (3, 3)

    num_groups: int = attr(1)
    epsilon: float = attr(1e-5)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, scale, bias = (np.asarray(v) for v in inputs[:3])
        grouped = x.reshape((x.shape[0], self.num_groups, -1)).astype(np.float64)
        mean = grouped.mean(axis=2, keepdims=True)
        var = grouped.var(axis=2, keepdims=True)
        normed = ((grouped - mean) / np.sqrt(var + self.epsilon)).reshape(x.shape)
        out = normed * _channel_view(scale, x.ndim) + _channel_view(bias, x.ndim)
        return [out.astype(x.dtype)]


def _batch_norm(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray, var: np.ndarray, eps: float
) -> np.ndarray:
    rank = np.asarray(x).ndim
    norm = (x - _channel_view(mean, rank)) / np.sqrt(_channel_view(var, rank) + eps)
    return (norm * _channel_view(gamma, rank) + _channel_view(beta, rank)).astype(np.asarray(x).dtype)


@dataclass(eq=False)
class BatchNormInference_v1(_LikeData):
    """BatchNormInference-1: inputs gamma, beta, data, mean, variance."""

    type = "BatchNormInference"
    arity = (5, 5)
    data_input = 2

    epsilon: float = attr(1e-5)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        gamma, beta, x, mean, var = inputs[:5]
        return [_batch_norm(x, gamma, beta, mean, var, self.epsilon)]


@dataclass(eq=False)
class BatchNormInference(_LikeData):
    """BatchNormInference-5: inputs data, gamma, beta, mean, variance."""

    type = "BatchNormInference"
    version = 5
    arity = (5, 5)

    epsilon: float = attr(1e-5)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, gamma, beta, mean, var = inputs[:5]
        return [_batch_norm(x, gamma, beta, mean, var, self.epsilon)]


OPS: tuple[type[Op], ...] = (
    MVN_v1,
    MVN,
    NormalizeL2,
    LRN,
    GRN,
    GroupNormalization,
    BatchNormInference_v1,
    BatchNormInference,
)
