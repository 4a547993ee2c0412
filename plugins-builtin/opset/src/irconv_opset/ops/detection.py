"""Object-detection ops: prior boxes, SSD/YOLO heads, proposals and NMS.

PriorBox and PriorBoxClustered take constant shape inputs in practice: their ``infer``
computes the output shape from those constants and their ``evaluate`` computes the boxes,
so partial inference folds them away (the Caffe SSD models depend on it).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.ops import Op, attr
from irconv.types import Dim, ElementType

from irconv_opset.ops._attrs import CoercedAttrs
from irconv_opset.ops._spatial import input_shape, input_type, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


# A prior box relative to its cell centre c, in image pixels: the box centre is
# c - back + forth + (shift_x, shift_y) (kept as separate terms to round as the runtime
# does), then half width, half height, and whether the box is clipped on its own.
_Box = tuple[np.float32, np.float32, np.float32, np.float32, np.float32, np.float32, bool]


def _two_ints(node: Node, idx: int) -> tuple[int, int] | None:
    value = node.input_value(idx)
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

    def infer(self, node: Node) -> None:
        _set_priors_output(node, self.priors_per_cell())

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


class CodeType(str, enum.Enum):
    corner = "caffe.PriorBoxParameter.CORNER"
    center_size = "caffe.PriorBoxParameter.CENTER_SIZE"
    corner_size = "caffe.PriorBoxParameter.CORNER_SIZE"


@dataclass(eq=False)
class DetectionOutput(CoercedAttrs, Op):
    """DetectionOutput-8: SSD box decoding + NMS -> [1, 1, N, 7] rows (image, label, conf, x1, y1, x2, y2).

    Inputs: box_logits [B, P*4 (or P*C*4)], class_preds [B, P*C], proposals [1 or B, 1 or 2,
    P*4 (normalized) or P*5], optional aux class/box predictions.
    """

    type = "DetectionOutput"
    version = 8

    background_label_id: int = attr(0)
    top_k: int = attr(-1)
    variance_encoded_in_target: bool = attr(False)
    keep_top_k: tuple[int, ...] = attr((-1,))
    code_type: CodeType = attr(CodeType.corner)
    share_location: bool = attr(True)
    nms_threshold: float = attr(0.0)
    confidence_threshold: float = attr(0.0)
    clip_after_nms: bool = attr(False)
    clip_before_nms: bool = attr(False)
    decrease_label_id: bool = attr(False)
    normalized: bool = attr(False)
    input_height: int = attr(1)
    input_width: int = attr(1)
    objectness_score: float = attr(0.0)

    def _classes(self, node: Node, priors: Dim) -> Dim:
        preds = input_shape(node, 1)
        if preds is None or preds[-1] is None or not priors:
            return None
        return preds[-1] // priors

    def infer(self, node: Node) -> None:
        boxes, proposals = input_shape(node, 0), input_shape(node, 2)
        batch = boxes[0] if boxes else None
        priors: Dim = None
        if proposals is not None and proposals[-1] is not None:
            priors = proposals[-1] // (4 if self.normalized else 5)
        rows: Dim = None
        keep = self.keep_top_k[0] if self.keep_top_k else -1
        if batch is not None:
            if keep > 0:
                rows = batch * keep
            else:
                classes = self._classes(node, priors)
                per_class = self.top_k if self.top_k > 0 else priors
                rows = None if classes is None or per_class is None else batch * per_class * classes
        set_output(node, 0, (1, 1, rows, 7), input_type(node, 0))


@dataclass(eq=False)
class DetectionOutput_v1(DetectionOutput):
    """DetectionOutput-1: as version 8 with an explicit ``num_classes``."""

    type = "DetectionOutput"
    version = 1

    num_classes: int = attr(1)

    def _classes(self, node: Node, priors: Dim) -> Dim:
        return self.num_classes


@dataclass(eq=False)
class RegionYolo(CoercedAttrs, Op):
    """RegionYolo-1: YOLO detection head; flattens axes [axis, end_axis] when ``do_softmax``."""

    type = "RegionYolo"
    version = 1

    coords: int = attr(4)
    classes: int = attr(1)
    num: int = attr(1)
    do_softmax: bool = attr(True)
    mask: tuple[int, ...] = attr(())
    axis: int = attr(1)
    end_axis: int = attr(3)
    anchors: tuple[float, ...] = attr(())

    def infer(self, node: Node) -> None:
        data = input_shape(node, 0)
        if data is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        rank = len(data)
        if self.do_softmax:
            first = self.axis % rank
            last = self.end_axis % rank
            span = data[first : last + 1]
            merged = None if any(d is None for d in span) else int(np.prod(span))  # type: ignore[arg-type]
            shape = (*data[:first], merged, *data[last + 1 :])
        else:
            shape = (data[0], (self.classes + self.coords + 1) * len(self.mask), *data[2:])
        set_output(node, 0, shape, input_type(node, 0))


@dataclass(eq=False)
class ReorgYolo(CoercedAttrs, Op):
    """ReorgYolo-2: [N, C, H, W] -> [N, C*stride², H/stride, W/stride]."""

    type = "ReorgYolo"
    version = 2

    stride: tuple[int, ...] = attr((2, 2))

    def infer(self, node: Node) -> None:
        data = input_shape(node, 0)
        if data is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        s = self.stride[0]
        shape = (
            data[0],
            None if data[1] is None else data[1] * s * s,
            *(None if d is None else d // s for d in data[2:]),
        )
        set_output(node, 0, shape, input_type(node, 0))


@dataclass(eq=False)
class Proposal_v1(CoercedAttrs, Op):
    """Proposal-1: region proposals [B*post_nms_topn, 5] (batch index, x1, y1, x2, y2)."""

    type = "Proposal"
    version = 1

    base_size: int = attr(1)
    pre_nms_topn: int = attr(1)
    post_nms_topn: int = attr(1)
    nms_thresh: float = attr(0.0)
    feat_stride: int = attr(1)
    min_size: int = attr(1)
    ratio: tuple[float, ...] = attr(())
    scale: tuple[float, ...] = attr(())
    clip_before_nms: bool = attr(True)
    clip_after_nms: bool = attr(False)
    normalize: bool = attr(False)
    box_size_scale: float = attr(1.0)
    box_coordinate_scale: float = attr(1.0)
    framework: str = attr("")

    def _rows(self, node: Node) -> Dim:
        scores = input_shape(node, 0)
        batch = scores[0] if scores else None
        return None if batch is None else batch * self.post_nms_topn

    def infer(self, node: Node) -> None:
        set_output(node, 0, (self._rows(node), 5), input_type(node, 0))


@dataclass(eq=False)
class Proposal(Proposal_v1):
    """Proposal-4: adds a second output, the proposals' scores [B*post_nms_topn]."""

    type = "Proposal"
    version = 4
    outputs = 2

    def infer(self, node: Node) -> None:
        rows = self._rows(node)
        set_output(node, 0, (rows, 5), input_type(node, 0))
        set_output(node, 1, (rows,), input_type(node, 0))


class BoxEncoding(enum.Enum):
    corner = "corner"
    center = "center"


def _nms_counts(node: Node) -> tuple[Dim, Dim, Dim, int | None]:
    """(batches, classes, boxes, max_output_boxes_per_class or None when not constant)."""
    boxes, scores = input_shape(node, 0), input_shape(node, 1)
    batches = boxes[0] if boxes else None
    count = boxes[1] if boxes else None
    classes = scores[1] if scores else None
    limit = node.input_value(2) if node.num_inputs() > 2 else None
    return batches, classes, count, None if limit is None else int(np.asarray(limit).reshape(-1)[0])


@dataclass(eq=False)
class NonMaxSuppression_v1(CoercedAttrs, Op):
    """NonMaxSuppression-1: selected (batch, class, box) triples, -1-padded to a static count."""

    type = "NonMaxSuppression"
    version = 1

    box_encoding: BoxEncoding = attr(BoxEncoding.corner)
    sort_result_descending: bool = attr(True)

    def _index_type(self) -> ElementType:
        return ElementType.i64

    def _selected(self, node: Node) -> Dim:
        # Versions 1 and 3 size the output as min(boxes, max_output_boxes_per_class * classes).
        _, classes, count, limit = _nms_counts(node)
        if limit is None or classes is None or count is None:
            return None
        return min(count, limit * classes)

    def infer(self, node: Node) -> None:
        set_output(node, 0, (self._selected(node), 3), self._index_type())


@dataclass(eq=False)
class NonMaxSuppression_v3(NonMaxSuppression_v1):
    """NonMaxSuppression-3: adds ``output_type``."""

    type = "NonMaxSuppression"
    version = 3

    output_type: ElementType = attr(ElementType.i64)

    def _index_type(self) -> ElementType:
        return self.output_type


@dataclass(eq=False)
class NonMaxSuppression_v4(NonMaxSuppression_v3):
    """NonMaxSuppression-4: output sized batches * classes * min(boxes, max_output_boxes_per_class)."""

    type = "NonMaxSuppression"
    version = 4

    def _selected(self, node: Node) -> Dim:
        batches, classes, count, limit = _nms_counts(node)
        if limit is None or None in (batches, classes, count):
            return None
        return batches * classes * min(count, limit)  # type: ignore[operator,type-var]


@dataclass(eq=False)
class NonMaxSuppression_v5(NonMaxSuppression_v3):
    """NonMaxSuppression-5: soft-NMS input; outputs selected indices, their scores, and their count."""

    type = "NonMaxSuppression"
    version = 5
    outputs = 3

    def infer(self, node: Node) -> None:
        # How many boxes survive is only known at run time.
        scores_type = input_type(node, 1)
        set_output(node, 0, (None, 3), self.output_type)
        set_output(node, 1, (None, 3), scores_type if scores_type.is_float else ElementType.f32)
        set_output(node, 2, (1,), self.output_type)


@dataclass(eq=False)
class NonMaxSuppression(NonMaxSuppression_v5):
    """NonMaxSuppression-9: as version 5 (the runtime's newer implementation)."""

    type = "NonMaxSuppression"
    version = 9


OPS: tuple[type[Op], ...] = (
    PriorBox_v1,
    PriorBox,
    PriorBoxClustered,
    DetectionOutput_v1,
    DetectionOutput,
    RegionYolo,
    ReorgYolo,
    Proposal_v1,
    Proposal,
    NonMaxSuppression_v1,
    NonMaxSuppression_v3,
    NonMaxSuppression_v4,
    NonMaxSuppression_v5,
    NonMaxSuppression,
)
