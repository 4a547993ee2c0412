"""Prior-box generators (PriorBox, PriorBoxClustered) of the detection family.

They take constant shape inputs in practice: ``infer`` computes the output shape from
those constants and ``evaluate`` computes the boxes in float32 with the runtime's order
of operations, so partial inference folds them away (the Caffe SSD models depend on it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.ops import Op, attr
from irconv.types import Dim, ElementType

from irconv_opset.ops._attrs import CoercedAttrs
from irconv_opset.ops._spatial import set_output
from irconv_opset.shapes import in_value

if TYPE_CHECKING:
    from irconv.graph import Node


# A prior box relative to its cell centre c, in image pixels: the box centre is
# c - back + forth + (shift_x, shift_y) (kept as separate terms to round as the runtime
# does), then half width, half height, and whether the box is clipped on its own.
_Box = tuple[np.float32, np.float32, np.float32, np.float32, np.float32, np.float32, bool]


def _two_ints(node: Node, idx: int) -> tuple[int, int] | None:
    value = in_value(node, idx)
    if value is None:
        return None
    flat = np.asarray(value).reshape(-1)
    return int(flat[0]), int(flat[1])


def _set_priors_output(node: Node, per_cell: int) -> None:
    """Prior-box output [2, 4 * H * W * priors per cell] (f32)."""
    layer = _two_ints(node, 0)
    length: Dim = None if layer is None else 4 * layer[0] * layer[1] * per_cell
    set_output(node, 0, (2, length), ElementType.f32)


def _variances(variance: Sequence[float], count: int) -> np.ndarray:
    """Second output row: the variance list repeated for every box (one value fills all four)."""
    values = list(variance) or [0.1]
    row = np.full(4, values[0], np.float32) if len(values) == 1 else np.asarray(values, np.float32)
    return np.tile(row, count)


@dataclass(eq=False)
class PriorBox_v1(CoercedAttrs, Op):
    """PriorBox-1: SSD prior boxes for a feature map (input 0: [H, W]) over an image (input 1: [IH, IW])."""

    type = "PriorBox"
    version = 1
    arity = (2, 2)

    min_size: tuple[float, ...] = attr(())
    max_size: tuple[float, ...] = attr(())
    aspect_ratio: tuple[float, ...] = attr(())
    flip: bool = attr(False)
    clip: bool = attr(False)
    step: float = attr(0.0)
    offset: float = attr(0.0)
    variance: tuple[float, ...] = attr(())
    scale_all_sizes: bool = attr(True)
    fixed_ratio: tuple[float, ...] = attr(())
    fixed_size: tuple[float, ...] = attr(())
    density: tuple[float, ...] = attr(())

    def _aspect_ratios(self) -> list[float]:
        """1 first, then each new ratio (and its inverse with ``flip``); near-duplicates dropped."""
        ratios = [1.0]
        for ratio in self.aspect_ratio:
            if any(abs(ratio - seen) < 1e-6 for seen in ratios):
                continue
            ratios.append(float(ratio))
            if self.flip:
                ratios.append(1.0 / float(ratio))
        return ratios

    def priors_per_cell(self) -> int:
        ratios = len({np.float32(r) for r in self._aspect_ratios()})
        if self.scale_all_sizes:
            count = ratios * len(self.min_size) + len(self.max_size)
        else:
            count = ratios + len(self.min_size) - 1
        if self.fixed_size:
            count = ratios * len(self.fixed_size)
        for density in self.density:
            extra = int(density) ** 2 - 1
            count += (len(self.fixed_ratio) if self.fixed_ratio else ratios) * extra
        return count

    def _min_max_order(self) -> bool:
        return True

    def generated_per_cell(self) -> int:
        """How many boxes per cell the generator writes (``priors_per_cell`` is what the
        runtime allocates; the two differ for inconsistent attribute combinations)."""
        ratios = [np.float32(r) for r in self._aspect_ratios()]
        min_sizes = [np.float32(v) for v in self.min_size]
        return len(self._fixed_boxes(ratios)) + len(self._sized_boxes(ratios, min_sizes))

    def infer(self, node: Node) -> None:
        allocated, generated = self.priors_per_cell(), self.generated_per_cell()
        if allocated != generated:
            raise ValueError(
                f"these attributes make the runtime allocate {allocated} boxes per cell but write {generated} "
                "(fixed_size with min_size, density without fixed_size, max_size without scale_all_sizes or "
                "longer than min_size, or fixed_ratio not one per aspect ratio): OpenVINO would overrun its buffer"
            )
        _set_priors_output(node, allocated)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        f32 = np.float32
        height, width = (int(v) for v in np.asarray(inputs[0]).reshape(-1)[:2])
        image_h, image_w = (int(v) for v in np.asarray(inputs[1]).reshape(-1)[:2])
        ratios = [f32(r) for r in self._aspect_ratios()]
        step = f32(self.step)
        min_sizes = [f32(v) for v in self.min_size]
        if not self.scale_all_sizes:
            # MXNet-style priors: step and min sizes are fractions of the image height.
            step = f32(image_h) / f32(height) if self.step == -1 else step * f32(image_h)
            min_sizes = [v * f32(image_h) for v in min_sizes]
        step_x = f32(image_w) / f32(width) if step == 0 else step
        step_y = f32(image_h) / f32(height) if step == 0 else step
        # Without a step the centres sit mid-cell whatever ``offset`` says (as the runtime does).
        offset = f32(0.5) if step == 0 else f32(self.offset)
        templates = self._fixed_boxes(ratios) + self._sized_boxes(ratios, min_sizes)
        # Every (cell, box) pair at once, in float32 with the runtime's order of operations.
        cx = ((np.arange(width, dtype=f32) + offset) * step_x)[np.newaxis, :, np.newaxis]
        cy = ((np.arange(height, dtype=f32) + offset) * step_y)[:, np.newaxis, np.newaxis]
        table = np.asarray([t[:6] for t in templates], f32).reshape(-1, 6).T
        back, forth, shift_x, shift_y, half_w, half_h = table
        grid = (height, width, len(templates))
        x = np.broadcast_to(cx - back + forth + shift_x, grid)
        y = np.broadcast_to(cy - back + forth + shift_y, grid)
        inv_w, inv_h = f32(1.0) / f32(image_w), f32(1.0) / f32(image_h)
        corners = np.stack([(x - half_w) * inv_w, (y - half_h) * inv_h, (x + half_w) * inv_w, (y + half_h) * inv_h], -1)
        # Fixed-size boxes are clipped one by one, the others only with ``clip``.
        clipped = np.asarray([t[6] for t in templates], bool)
        corners[..., clipped, :2] = np.maximum(corners[..., clipped, :2], f32(0))
        corners[..., clipped, 2:] = np.minimum(corners[..., clipped, 2:], f32(1))
        coords = corners.astype(f32).reshape(-1)
        if self.clip:
            coords = np.clip(coords, 0.0, 1.0)
        return [np.stack([coords, _variances(self.variance, coords.size // 4)])]

    def _fixed_boxes(self, ratios: list[np.float32]) -> list[_Box]:
        """Boxes of ``fixed_size`` laid out on a ``density`` x ``density`` sub-grid of the cell."""
        f32 = np.float32
        boxes: list[_Box] = []
        for s, size in enumerate(self.fixed_size):
            size_int = int(size)
            density = int(self.density[s]) if s < len(self.density) else 1
            shift = int(size / density) if density else 0
            halves: list[tuple[np.float32, np.float32]] = []
            if self.fixed_ratio:
                roots = [np.sqrt(f32(r)) for r in self.fixed_ratio]
            else:
                if self.density:
                    halves.append((f32(size_int) * f32(0.5), f32(size_int) * f32(0.5)))
                roots = [np.sqrt(r) for r in ratios if abs(r - 1.0) >= 1e-6]
            halves += [(f32(size) * f32(0.5) * root, f32(size) * f32(0.5) / root) for root in roots]
            back, forth = f32(size_int // 2), f32(shift) / f32(2)
            for half_w, half_h in halves:
                for r in range(density):
                    for c in range(density):
                        boxes.append((back, forth, f32(c * shift), f32(r * shift), half_w, half_h, True))
        return boxes

    def _sized_boxes(self, ratios: list[np.float32], min_sizes: list[np.float32]) -> list[_Box]:
        """Caffe's boxes: the min_size square, the sqrt(min*max) square, one box per aspect ratio."""
        f32 = np.float32
        zero = f32(0)
        boxes: list[_Box] = []
        for i, min_size in enumerate(min_sizes):
            half = min_size * f32(0.5)
            boxes.append((zero, zero, zero, zero, half, half, False))
            max_boxes: list[_Box] = []
            if i < len(self.max_size):
                half_max = np.sqrt(min_size * f32(self.max_size[i])) * f32(0.5)
                max_boxes.append((zero, zero, zero, zero, half_max, half_max, False))
            ratio_boxes: list[_Box] = []
            if self.scale_all_sizes or i == len(min_sizes) - 1:
                base = min_sizes[i if self.scale_all_sizes else 0] * f32(0.5)
                for root in (np.sqrt(r) for r in ratios if abs(r - 1.0) >= 1e-6):
                    ratio_boxes.append((zero, zero, zero, zero, base * root, base / root, False))
            boxes += max_boxes + ratio_boxes if self._min_max_order() else ratio_boxes + max_boxes
        return boxes


@dataclass(eq=False)
class PriorBox(PriorBox_v1):
    """PriorBox-8: adds ``min_max_aspect_ratios_order`` (False: aspect-ratio boxes before the max box)."""

    type = "PriorBox"
    version = 8

    min_max_aspect_ratios_order: bool = attr(True)

    def _min_max_order(self) -> bool:
        return self.min_max_aspect_ratios_order


@dataclass(eq=False)
class PriorBoxClustered(CoercedAttrs, Op):
    """PriorBoxClustered-1: one box of each (width, height) pair around every feature-map cell."""

    type = "PriorBoxClustered"
    version = 1
    arity = (2, 2)

    width: tuple[float, ...] = attr(())
    height: tuple[float, ...] = attr(())
    clip: bool = attr(True)
    step: float = attr(0.0)
    step_w: float = attr(0.0)
    step_h: float = attr(0.0)
    offset: float = attr(0.5)
    variance: tuple[float, ...] = attr(())

    def infer(self, node: Node) -> None:
        _set_priors_output(node, len(self.width))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        f32 = np.float32
        height, width = (int(v) for v in np.asarray(inputs[0]).reshape(-1)[:2])
        image_h, image_w = (int(v) for v in np.asarray(inputs[1]).reshape(-1)[:2])
        step_w, step_h = f32(self.step_w), f32(self.step_h)
        if self.step:
            step_w = step_h = f32(self.step)
        if step_w == 0 and step_h == 0:
            step_w, step_h = f32(image_w) / f32(width), f32(image_h) / f32(height)
        xs = (np.arange(width, dtype=np.float32) + f32(self.offset)) * step_w
        ys = (np.arange(height, dtype=np.float32) + f32(self.offset)) * step_h
        half_w = np.asarray(self.width, np.float32) / f32(2)
        half_h = np.asarray(self.height, np.float32) / f32(2)
        cx = xs[np.newaxis, :, np.newaxis]
        cy = ys[:, np.newaxis, np.newaxis]
        shape = (height, width, len(self.width))
        boxes = np.stack(
            [
                np.broadcast_to((cx - half_w) / f32(image_w), shape),
                np.broadcast_to((cy - half_h) / f32(image_h), shape),
                np.broadcast_to((cx + half_w) / f32(image_w), shape),
                np.broadcast_to((cy + half_h) / f32(image_h), shape),
            ],
            axis=-1,
        ).astype(np.float32)
        if self.clip:
            boxes = np.clip(boxes, 0.0, 1.0)
        coords = boxes.reshape(-1)
        return [np.stack([coords, _variances(self.variance, coords.size // 4)])]
