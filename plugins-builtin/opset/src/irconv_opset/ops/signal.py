"""Discrete Fourier transforms: DFT, IDFT (complex to complex), RDFT (real to complex),
IRDFT (complex to real), and the short-time transform STFT.

A complex tensor is a real tensor with a trailing dim of 2 (real, imaginary); its
``axes`` count dims without that trailing one. An optional ``signal_size`` input trims or
zero-pads each transformed axis first (``-1`` keeps the size).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from irconv.ops import Op, attr
from irconv.types import Dim, MaybeShape

from irconv_opset.shapes import in_shape, in_type, in_value, normalize_axes, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


def _complex(data: np.ndarray) -> np.ndarray:
    return data[..., 0].astype(np.float64) + 1j * data[..., 1].astype(np.float64)


def _split(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.stack([value.real, value.imag], axis=-1).astype(dtype)


@dataclass(eq=False)
class _Fourier(Op):
    """Base: inputs data, axes, optional signal_size."""

    version = 7
    #: True when the input is complex (trailing dim 2); False for RDFT.
    complex_input: ClassVar[bool] = True

    def _rank(self, shape: tuple[Dim, ...]) -> int:
        return len(shape) - 1 if self.complex_input else len(shape)

    def _sizes(self, inputs: Sequence[np.ndarray], axes: list[int]) -> list[int | None]:
        if len(inputs) < 3:
            return [None] * len(axes)
        return [None if int(s) == -1 else int(s) for s in np.asarray(inputs[2]).reshape(-1)]

    def out_shape(self, shape: tuple[Dim, ...], axes: list[int], sizes: list[int | None]) -> tuple[Dim, ...]:
        dims = list(shape)
        for axis, size in zip(axes, sizes, strict=False):
            if size is not None:
                dims[axis] = size
        return tuple(dims)

    def infer(self, node: Node) -> None:
        shape, axes_value = in_shape(node, 0), in_value(node, 1)
        out: MaybeShape = None
        if shape is not None:
            if axes_value is None:
                out = (None,) * (len(self.out_shape(shape, [], [])))
            else:
                axes = normalize_axes(axes_value.reshape(-1), self._rank(shape))
                sizes: list[int | None] = [None] * len(axes)
                if node.has_input(2):
                    value = in_value(node, 2)
                    if value is None:
                        out = (None,) * len(self.out_shape(shape, [], []))
                        set_output(node, 0, out, in_type(node, 0))
                        return
                    sizes = [None if int(s) == -1 else int(s) for s in value.reshape(-1)]
                out = self.out_shape(shape, axes, sizes)
        set_output(node, 0, out, in_type(node, 0))

    def transform(self, data: np.ndarray, axes: list[int], sizes: list[int | None]) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data = np.asarray(inputs[0])
        axes = normalize_axes(np.asarray(inputs[1]).reshape(-1), self._rank(data.shape))
        return [self.transform(data, axes, self._sizes(inputs, axes))]


def _s(data_shape: Sequence[int], axes: list[int], sizes: list[int | None]) -> list[int]:
    return [data_shape[a] if s is None else s for a, s in zip(axes, sizes, strict=False)]


@dataclass(eq=False)
class DFT(_Fourier):
    type = "DFT"
    arity = (2, 3)

    def transform(self, data: np.ndarray, axes: list[int], sizes: list[int | None]) -> np.ndarray:
        x = _complex(data)
        return _split(np.fft.fftn(x, s=_s(x.shape, axes, sizes), axes=axes), data.dtype)


@dataclass(eq=False)
class IDFT(_Fourier):
    type = "IDFT"
    arity = (2, 3)

    def transform(self, data: np.ndarray, axes: list[int], sizes: list[int | None]) -> np.ndarray:
        x = _complex(data)
        return _split(np.fft.ifftn(x, s=_s(x.shape, axes, sizes), axes=axes), data.dtype)


@dataclass(eq=False)
class RDFT(_Fourier):
    """Real input; the last transformed axis keeps ``n // 2 + 1`` frequencies."""

    type = "RDFT"
    version = 9
    arity = (2, 3)
    complex_input = False

    def out_shape(self, shape: tuple[Dim, ...], axes: list[int], sizes: list[int | None]) -> tuple[Dim, ...]:
        dims = list(super().out_shape(shape, axes, sizes))
        if axes:
            last = dims[axes[-1]]
            dims[axes[-1]] = None if last is None else last // 2 + 1
        return tuple(dims) + (2,)

    def transform(self, data: np.ndarray, axes: list[int], sizes: list[int | None]) -> np.ndarray:
        x = data.astype(np.float64)
        return _split(np.fft.rfftn(x, s=_s(x.shape, axes, sizes), axes=axes), data.dtype)


@dataclass(eq=False)
class IRDFT(_Fourier):
    """Complex input, real output; the last axis becomes ``2 * (n - 1)`` unless sized."""

    type = "IRDFT"
    version = 9
    arity = (2, 3)

    def out_shape(self, shape: tuple[Dim, ...], axes: list[int], sizes: list[int | None]) -> tuple[Dim, ...]:
        dims = list(shape[:-1])
        for axis, size in zip(axes, sizes, strict=False):
            if size is not None:
                dims[axis] = size
        if axes and sizes[-1] is None:
            last = dims[axes[-1]]
            dims[axes[-1]] = None if last is None else 2 * (last - 1)
        return tuple(dims)

    def transform(self, data: np.ndarray, axes: list[int], sizes: list[int | None]) -> np.ndarray:
        x = _complex(data)
        s = _s(x.shape, axes, sizes)
        if sizes and sizes[-1] is None:
            s[-1] = 2 * (x.shape[axes[-1]] - 1)
        return np.fft.irfftn(x, s=s, axes=axes).astype(data.dtype)


@dataclass(eq=False)
class STFT(Op):
    """STFT-15: inputs signal [L] or [B, L], window [W], frame_size, frame_step (scalars).

    Frames of ``frame_size`` every ``frame_step``, multiplied by the window (zero-padded to
    the frame, centred), then a real DFT; output ``[B?, frames, frame_size // 2 + 1, 2]``, or
    ``[B?, bins, frames, 2]`` with ``transpose_frames``.
    """

    type = "STFT"
    version = 15
    arity = (4, 4)

    transpose_frames: bool = attr(False)

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        size, step = in_value(node, 2), in_value(node, 3)
        out: MaybeShape = None
        if shape is not None:
            frames: Dim = None
            bins: Dim = None
            if size is not None:
                bins = int(size) // 2 + 1
                if step is not None and shape[-1] is not None:
                    frames = (shape[-1] - int(size)) // int(step) + 1
            inner = (bins, frames) if self.transpose_frames else (frames, bins)
            out = tuple(shape[:-1]) + inner + (2,)
        set_output(node, 0, out, in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        signal, window = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
        size, step = int(np.asarray(inputs[2])), int(np.asarray(inputs[3]))
        left = (size - window.size) // 2
        padded_window = np.zeros(size, np.float64)
        padded_window[left : left + window.size] = window
        count = (signal.shape[-1] - size) // step + 1
        starts = np.arange(count) * step
        frames = np.stack([signal[..., s : s + size] for s in starts], axis=-2).astype(np.float64)
        spectrum = np.fft.rfft(frames * padded_window, axis=-1)
        if self.transpose_frames:
            spectrum = np.swapaxes(spectrum, -1, -2)
        return [_split(spectrum, signal.dtype)]


@dataclass(eq=False)
class ISTFT(Op):
    """ISTFT-16: inputs data [B?, bins, frames, 2], window [W], frame_size, frame_step and an
    optional signal_length.

    Each frame is an inverse real DFT of ``frame_size`` points, windowed and overlap-added,
    then divided by the overlapped squared window. ``center`` drops ``frame_size // 2`` at
    both ends; ``normalized`` scales by ``sqrt(frame_size)``; signal_length trims or
    zero-pads the result.
    """

    type = "ISTFT"
    version = 16
    arity = (4, 5)

    center: bool = attr(False)
    normalized: bool = attr(False)

    def _length(self, frames: int, size: int, step: int) -> int:
        full = (frames - 1) * step + size
        return full - 2 * (size // 2) if self.center else full

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        size, step = in_value(node, 2), in_value(node, 3)
        out: MaybeShape = None
        if shape is not None:
            length: Dim = None
            if node.has_input(4):
                value = in_value(node, 4)
                length = None if value is None else int(np.asarray(value).reshape(-1)[0])
            elif size is not None and step is not None and shape[-2] is not None:
                length = self._length(shape[-2], int(size), int(step))
            out = tuple(shape[:-3]) + (length,)
        set_output(node, 0, out, in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, window = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1).astype(np.float64)
        size, step = int(np.asarray(inputs[2])), int(np.asarray(inputs[3]))
        frames = np.fft.irfft(_complex(data), n=size, axis=-2)  # [B?, size, frames]
        if self.normalized:
            frames = frames * np.sqrt(size)
        left = (size - window.size) // 2
        padded_window = np.zeros(size)
        padded_window[left : left + window.size] = window
        count = frames.shape[-1]
        full = (count - 1) * step + size
        out: np.ndarray = np.zeros((*frames.shape[:-2], full))
        norm = np.zeros(full)
        for t in range(count):
            out[..., t * step : t * step + size] += frames[..., t] * padded_window
            norm[t * step : t * step + size] += padded_window**2
        covered = norm > 1e-10
        out = np.where(covered, out / np.where(covered, norm, 1.0), 0.0)
        if self.center:
            out = out[..., size // 2 : full - size // 2]
        if len(inputs) > 4:
            length = int(np.asarray(inputs[4]).reshape(-1)[0])
            out = out[..., :length]
            if out.shape[-1] < length:
                out = np.concatenate([out, np.zeros(out.shape[:-1] + (length - out.shape[-1],))], axis=-1)
        return [out.astype(data.dtype)]


OPS: tuple[type[Op], ...] = (DFT, IDFT, RDFT, IRDFT, STFT, ISTFT)
