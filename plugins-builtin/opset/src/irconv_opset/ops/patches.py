"""Image patches: ExtractImagePatches-3 (image to patch columns) and Col2Im-15 (back, summing
overlaps). Both work on NCHW data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.ops import Op, attr
from irconv.types import Dim

from irconv_opset.shapes import in_shape, in_type, in_value, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


@dataclass(eq=False)
class ExtractImagePatches(Op):
    """Patches of ``sizes`` taken every ``strides`` with ``rates`` dilation; output
    ``[N, C * rows * cols, out_h, out_w]`` with the depth ordered (row, col, channel)."""

    type = "ExtractImagePatches"
    version = 3
    arity = (1, 1)

    sizes: list[int] = attr(factory=lambda: [1, 1])
    strides: list[int] = attr(factory=lambda: [1, 1])
    rates: list[int] = attr(factory=lambda: [1, 1])
    auto_pad: str = attr("valid", choices=("valid", "same_upper", "same_lower"))

    def _out_dim(self, size: Dim, axis: int) -> Dim:
        if size is None:
            return None
        stride = self.strides[axis]
        if self.auto_pad == "valid":
            span = self.rates[axis] * (self.sizes[axis] - 1) + 1
            return max((size - span) // stride + 1, 0)
        return -(-size // stride)

    def _pad_begin(self, size: int, axis: int) -> int:
        if self.auto_pad == "valid":
            return 0
        out = self._out_dim(size, axis) or 0
        span = self.rates[axis] * (self.sizes[axis] - 1) + 1
        total = max((out - 1) * self.strides[axis] + span - size, 0)
        return total // 2 if self.auto_pad == "same_upper" else (total + 1) // 2

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        out = None
        if shape is not None:
            n, c, h, w = shape
            depth = None if c is None else c * self.sizes[0] * self.sizes[1]
            out = (n, depth, self._out_dim(h, 0), self._out_dim(w, 1))
        set_output(node, 0, out, in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        n, c, h, w = x.shape
        out_h, out_w = self._out_dim(h, 0) or 0, self._out_dim(w, 1) or 0
        top, left = self._pad_begin(h, 0), self._pad_begin(w, 1)
        out = np.zeros((n, self.sizes[0], self.sizes[1], c, out_h, out_w), x.dtype)
        for i in range(out_h):
            for j in range(out_w):
                for r in range(self.sizes[0]):
                    for s in range(self.sizes[1]):
                        y = i * self.strides[0] + r * self.rates[0] - top
                        z = j * self.strides[1] + s * self.rates[1] - left
                        if 0 <= y < h and 0 <= z < w:
                            out[:, r, s, :, i, j] = x[:, :, y, z]
        return [out.reshape(n, -1, out_h, out_w)]


@dataclass(eq=False)
class Col2Im(Op):
    """Inputs data [N, C * kh * kw, L] (or unbatched), output_size [H, W], kernel_size [kh, kw];
    output [N, C, H, W] with overlapping patch values summed."""

    type = "Col2Im"
    version = 15
    arity = (3, 3)

    strides: list[int] = attr(factory=lambda: [1, 1])
    dilations: list[int] = attr(factory=lambda: [1, 1])
    pads_begin: list[int] = attr(factory=lambda: [0, 0])
    pads_end: list[int] = attr(factory=lambda: [0, 0])

    def infer(self, node: Node) -> None:
        shape, size, kernel = in_shape(node, 0), in_value(node, 1), in_value(node, 2)
        out = None
        if shape is not None:
            hw: tuple[Dim, Dim] = (None, None) if size is None else (int(size[0]), int(size[1]))
            channels: Dim = None
            if kernel is not None and shape[-2] is not None:
                channels = shape[-2] // int(np.prod(kernel))
            out = (channels, *hw) if len(shape) == 2 else (shape[0], channels, *hw)
        set_output(node, 0, out, in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        batched = x.ndim == 3
        if not batched:
            x = x[None]
        height, width = (int(v) for v in np.asarray(inputs[1]).reshape(-1))
        kh, kw = (int(v) for v in np.asarray(inputs[2]).reshape(-1))
        n, depth, _ = x.shape
        c = depth // (kh * kw)
        padded_h = height + self.pads_begin[0] + self.pads_end[0]
        padded_w = width + self.pads_begin[1] + self.pads_end[1]
        blocks_h = (padded_h - (self.dilations[0] * (kh - 1) + 1)) // self.strides[0] + 1
        blocks_w = (padded_w - (self.dilations[1] * (kw - 1) + 1)) // self.strides[1] + 1
        cols = x.reshape(n, c, kh, kw, blocks_h, blocks_w)
        out = np.zeros((n, c, padded_h, padded_w), x.dtype)
        for r in range(kh):
            for s in range(kw):
                y0, z0 = r * self.dilations[0], s * self.dilations[1]
                ys = slice(y0, y0 + self.strides[0] * (blocks_h - 1) + 1, self.strides[0])
                zs = slice(z0, z0 + self.strides[1] * (blocks_w - 1) + 1, self.strides[1])
                out[:, :, ys, zs] += cols[:, :, r, s]
        out = out[
            :, :, self.pads_begin[0] : self.pads_begin[0] + height, self.pads_begin[1] : self.pads_begin[1] + width
        ]
        return [out if batched else out[0]]


OPS: tuple[type[Op], ...] = (ExtractImagePatches, Col2Im)
