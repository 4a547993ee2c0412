"""Poolings: max and average over windows, and the adaptive forms."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import ConversionError, quoted
from irconv.ops import Op, attr
from irconv.types import ElementType, MaybeShape, format_shape

from irconv_opset.ops._attrs import INDEX_TYPES, CoercedAttrs
from irconv_opset.ops._spatial import (
    AutoPad,
    RoundingType,
    input_shape,
    input_type,
    same_pads,
    set_output,
    window_dim,
)
from irconv_opset.rules import require_at_most
from irconv_opset.shapes import in_value

if TYPE_CHECKING:
    from irconv.graph import Node


def _pooled_shape(data: MaybeShape, op: _PoolBase, dilations: Sequence[int] | None) -> MaybeShape:
    if data is None:
        # The kernel fixes the rank even when the input's is unknown.
        return (None,) * (len(op.kernel) + 2) if op.kernel else None
    spatial = data[2:]
    rank = len(spatial)
    _check_window(data, op, dilations)
    dilations = dilations or (1,) * rank
    pads_begin = op.pads_begin if len(op.pads_begin) == rank else (0,) * rank
    pads_end = op.pads_end if len(op.pads_end) == rank else (0,) * rank
    out = tuple(
        window_dim(
            spatial[i],
            op.kernel[i],
            op.strides[i],
            dilations[i],
            pads_begin[i],
            pads_end[i],
            op.auto_pad,
            op.rounding_type,
        )
        for i in range(rank)
    )
    return (*data[:2], *out)


def _check_window(data: tuple[int | None, ...], op: _PoolBase, dilations: Sequence[int] | None) -> None:
    """What the runtime checks on a pooling: one window entry per spatial axis (pads may be
    empty). (It also refuses a zero batch, but a statically empty pooling is folded away by
    the front ends that meet one, so that is a rule of the finished graph: ``check``.)"""
    rank = len(data) - 2
    for name, values in (("kernel", op.kernel), ("strides", op.strides), ("dilations", dilations or ())):
        if (values or name != "dilations") and len(values) != rank:
            raise ValueError(f"{name} {list(values)} does not match the input's {rank} spatial dimensions")
    for name, values in (("pads_begin", op.pads_begin), ("pads_end", op.pads_end)):
        if values and len(values) != rank:
            raise ValueError(f"{name} {list(values)} does not match the input's {rank} spatial dimensions")


def _lowest(dtype: np.dtype) -> float | int:
    """The padding value of a maximum: the type's lowest finite value, which is also what
    the runtime returns for a window that covers no input at all."""
    return float(np.finfo(dtype).min) if np.issubdtype(dtype, np.floating) else int(np.iinfo(dtype).min)


@dataclass(eq=False)
class _PoolBase(CoercedAttrs, Op):
    """Window attributes shared by MaxPool and AvgPool (field order = IR order)."""

    strides: tuple[int, ...] = attr(())
    pads_begin: tuple[int, ...] = attr(())
    pads_end: tuple[int, ...] = attr(())
    kernel: tuple[int, ...] = attr(())
    rounding_type: RoundingType = attr(RoundingType.floor)
    auto_pad: AutoPad = attr(AutoPad.explicit)

    def _dilations(self) -> Sequence[int] | None:
        return None

    def infer(self, node: Node) -> None:
        require_at_most(node, 1)
        shape = _pooled_shape(input_shape(node, 0), self, self._dilations())
        set_output(node, 0, shape, input_type(node, 0))

    def check(self, node: Node) -> None:
        """The runtime refuses a pooling over an empty batch when it reads the IR; one the
        front ends fold (constant data) never reaches the finished graph."""
        data = input_shape(node, 0)
        if data and data[0] == 0:
            raise ConversionError(
                f"node {quoted(node.name)} ({self.describe()}): the input's batch is zero ({format_shape(data)}); "
                "OpenVINO refuses a pooling over an empty batch (give the model input a batch of 1 or more, "
                "e.g. with --input name[d0,d1,...])"
            )

    def _windows(self, data: np.ndarray, pad_value: float) -> tuple[np.ndarray, np.ndarray]:
        """Every window of ``data`` as [N, C, *out, *kernel], and a mask of the same window
        cells that are real input (not padding, nor the cells ceil rounding reads past it)."""
        rank = data.ndim - 2
        dilations = self._dilations() or (1,) * rank
        out = _pooled_shape(data.shape, self, dilations)
        assert out is not None
        out_spatial = [d for d in out[2:] if d is not None]  # all of them: data is an array
        pads = self._pads(data.shape, dilations)
        extra = []
        for i in range(rank):
            need = (out_spatial[i] - 1) * self.strides[i] + (self.kernel[i] - 1) * dilations[i] + 1
            extra.append(max(need - data.shape[2 + i] - pads[i][0] - pads[i][1], 0))
        full = [(begin, end + more) for (begin, end), more in zip(pads, extra, strict=False)]
        padded = np.pad(data, [(0, 0), (0, 0), *full], constant_values=pad_value)
        real = np.pad(np.ones(data.shape[2:], bool), full, constant_values=False)
        windows, real_cells = [], []
        for offset in np.ndindex(*self.kernel):
            index = tuple(
                slice(
                    offset[i] * dilations[i],
                    offset[i] * dilations[i] + (out_spatial[i] - 1) * self.strides[i] + 1,
                    self.strides[i],
                )
                for i in range(rank)
            )
            windows.append(padded[(slice(None), slice(None), *index)])
            real_cells.append(real[index])
        return np.stack(windows, axis=-1), np.stack(real_cells, axis=-1)

    def _pads(self, shape: Sequence[int], dilations: Sequence[int]) -> list[tuple[int, int]]:
        rank = len(shape) - 2
        if self.auto_pad in (AutoPad.same_upper, AutoPad.same_lower):
            upper = self.auto_pad is AutoPad.same_upper
            return [same_pads(shape[2 + i], self.kernel[i], self.strides[i], dilations[i], upper) for i in range(rank)]
        if self.auto_pad is AutoPad.valid or len(self.pads_begin) != rank:
            return [(0, 0)] * rank
        return list(zip(self.pads_begin, self.pads_end, strict=False))


@dataclass(eq=False)
class MaxPool_v1(_PoolBase):
    """MaxPool-1: values only, no dilations."""

    type = "MaxPool"
    version = 1
    arity = (1, 1)

    #: ``ceil_torch`` came with version 14
    rounding_type: RoundingType = attr(RoundingType.floor, choices=("floor", "ceil"))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        windows = self._windows(inputs[0], _lowest(inputs[0].dtype))[0]
        return [windows.max(axis=-1).astype(inputs[0].dtype)]


@dataclass(eq=False)
class MaxPool_v8(_PoolBase):
    """MaxPool-8: values and flat indices of the maxima, dilations, floor/ceil rounding."""

    type = "MaxPool"
    version = 8
    arity = (1, 1)
    outputs = 2

    #: ``ceil_torch`` came with version 14
    rounding_type: RoundingType = attr(RoundingType.floor, choices=("floor", "ceil"))

    dilations: tuple[int, ...] = attr(())
    index_element_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)
    axis: int = attr(0)

    def _dilations(self) -> Sequence[int] | None:
        return self.dilations or None

    def infer(self, node: Node) -> None:
        super().infer(node)
        set_output(node, 1, node.out_port(0).data.get_shape(), self.index_element_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        data = inputs[0]
        rank = data.ndim - 2
        windows = self._windows(data, _lowest(data.dtype))[0]
        values = windows.max(axis=-1).astype(data.dtype)
        best = windows.argmax(axis=-1)
        # Which input element each window cell reads, as a flat index over the spatial dims.
        spatial = data.shape[2:]
        positions = np.arange(int(np.prod(spatial)), dtype=np.float64).reshape(1, 1, *spatial)
        # A window over padding only reports index 0, as the runtime does.
        cells = self._windows(positions, 0.0)[0].astype(np.int64)
        flat = np.take_along_axis(np.broadcast_to(cells, windows.shape), best[..., None], axis=-1)[..., 0]
        # Indices count from ``axis`` on: add the batch/channel offsets that lie past it.
        axis = self.axis if self.axis >= 0 else self.axis + data.ndim
        plane = int(np.prod(spatial))
        if axis == 0:
            flat = flat + np.arange(data.shape[0]).reshape(-1, 1, *([1] * rank)) * data.shape[1] * plane
        if axis <= 1:
            flat = flat + np.arange(data.shape[1]).reshape(1, -1, *([1] * rank)) * plane
        return [values, flat.astype(self.index_element_type.numpy)]


@dataclass(eq=False)
class MaxPool(MaxPool_v8):
    """MaxPool-14: adds the ``ceil_torch`` rounding type."""

    type = "MaxPool"
    version = 14

    rounding_type: RoundingType = attr(RoundingType.floor, choices=tuple(RoundingType))


@dataclass(eq=False)
class AvgPool_v1(_PoolBase):
    """AvgPool-1: mean over each window, padded cells counted unless ``exclude-pad``."""

    type = "AvgPool"
    version = 1
    arity = (1, 1)

    #: ``ceil_torch`` came with version 14
    rounding_type: RoundingType = attr(RoundingType.floor, choices=("floor", "ceil"))

    exclude_pad: bool = attr(False, ir="exclude-pad")

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        data = inputs[0]
        windows, real = self._windows(data.astype(np.float64), 0.0)
        dilations = self._dilations() or (1,) * (data.ndim - 2)
        padded = any(begin or end for begin, end in self._pads(data.shape, dilations))
        if self.exclude_pad or not padded:
            count = real.sum(axis=-1)
        else:
            # Counting the padding, the CPU runtime divides by the whole window, also where
            # ceil rounding reaches past the padding (PyTorch would stop at the padding).
            count = np.full(real.shape[:-1], int(np.prod(self.kernel)))
        # A window over no input at all averages nothing: NaN, as in the runtime.
        with np.errstate(invalid="ignore", divide="ignore"):
            return [(windows.sum(axis=-1) / count).astype(data.dtype)]


@dataclass(eq=False)
class AvgPool_v14(AvgPool_v1):
    """AvgPool-14: adds the ``ceil_torch`` rounding type."""

    type = "AvgPool"
    version = 14

    rounding_type: RoundingType = attr(RoundingType.floor, choices=tuple(RoundingType))


@dataclass(eq=False)
class AvgPool(AvgPool_v14):
    """AvgPool-16: adds ``dilations`` (empty: no dilation)."""

    type = "AvgPool"
    version = 16

    dilations: tuple[int, ...] = attr(())

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.dilations and self.kernel:
            # The CPU plugin crashes on an AvgPool-16 without dilations: always write them.
            self.dilations = (1,) * len(self.kernel)

    def _dilations(self) -> Sequence[int] | None:
        return self.dilations or None


@dataclass(eq=False)
class AdaptiveAvgPool(Op):
    """AdaptiveAvgPool-8: input 1 gives the output's spatial shape."""

    type = "AdaptiveAvgPool"
    version = 8
    arity = (2, 2)

    def infer(self, node: Node) -> None:
        set_output(node, 0, _adaptive_shape(node), input_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        return [_adaptive(inputs[0], inputs[1], np.mean)[0]]


@dataclass(eq=False)
class AdaptiveMaxPool(CoercedAttrs, Op):
    """AdaptiveMaxPool-8: values and flat spatial indices of the maxima."""

    type = "AdaptiveMaxPool"
    version = 8
    arity = (2, 2)
    outputs = 2

    index_element_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)

    def infer(self, node: Node) -> None:
        shape = _adaptive_shape(node)
        set_output(node, 0, shape, input_type(node, 0))
        set_output(node, 1, shape, self.index_element_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        values, indices = _adaptive(inputs[0], inputs[1], np.max)
        return [values, indices.astype(self.index_element_type.numpy)]


def _adaptive_shape(node: Node) -> MaybeShape:
    data = input_shape(node, 0)
    sizes = in_value(node, 1)
    if sizes is not None:
        spatial: tuple[int | None, ...] = tuple(int(v) for v in np.asarray(sizes).reshape(-1))
    else:
        size_shape = input_shape(node, 1)
        if size_shape is None or size_shape[0] is None:
            return None if data is None else (*data[:2], *([None] * (len(data) - 2)))
        spatial = (None,) * size_shape[0]
    if data is None:
        return (None, None, *spatial)
    return (*data[:2], *spatial)


def _adaptive(
    data: np.ndarray, sizes: np.ndarray, reduce: Callable[..., np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Adaptive pooling: bin i of length L over n outputs is [floor(i*L/n), ceil((i+1)*L/n))."""
    spatial = data.shape[2:]
    out_sizes = [int(v) for v in np.asarray(sizes).reshape(-1)]
    values = np.zeros((*data.shape[:2], *out_sizes), data.dtype)
    indices = np.zeros(values.shape, np.int64)
    flat_index = np.arange(int(np.prod(spatial))).reshape(spatial)
    for cell in np.ndindex(*out_sizes):
        window = tuple(
            slice((c * length) // n, -(-((c + 1) * length) // n))
            for c, length, n in zip(cell, spatial, out_sizes, strict=False)
        )
        patch = data[(slice(None), slice(None), *window)].reshape(*data.shape[:2], -1)
        values[(slice(None), slice(None), *cell)] = reduce(patch, axis=-1)
        best = patch.argmax(axis=-1)
        indices[(slice(None), slice(None), *cell)] = flat_index[window].reshape(-1)[best]
    return values, indices


OPS: tuple[type[Op], ...] = (
    MaxPool_v1,
    MaxPool_v8,
    MaxPool,
    AvgPool_v1,
    AvgPool_v14,
    AvgPool,
    AdaptiveAvgPool,
    AdaptiveMaxPool,
)
