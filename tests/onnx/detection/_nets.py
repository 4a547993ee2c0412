"""Three small detection networks after the public SSD, RetinaNet and Faster R-CNN designs (plain torch).

Every network maps a 1x3xSxS image to ``boxes`` [K, 4] (x1, y1, x2, y2), ``scores`` [K] and
``labels`` [K] (int64, 1-based; 0 is background), K decided by NonMaxSuppression at run time.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from _layers import Nms, RoiAlign, decode, grid_anchors, head_to_rows, shapes_for
from torch import Tensor, nn

SIZE = 128
CLASSES = 3
SIZE_LIMIT = math.log(1000.0 / 16)  # the usual cap on exp(dw), exp(dh)


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Module:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.BatchNorm2d(cout), nn.ReLU())


def _anchors(maps: list[tuple[int, int, list[tuple[float, float]]]]) -> Tensor:
    """Concatenated anchors for (map size, stride, shapes) levels."""
    return torch.from_numpy(np.concatenate([grid_anchors(n, stride, shapes) for n, stride, shapes in maps]))


def _pick(boxes: Tensor, scores: Tensor, selected: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Gather NMS picks: boxes [B, N, 4], scores [B, C, N], selected [K, 3] -> boxes, scores, 1-based labels."""
    batch, label, index = selected[:, 0], selected[:, 1], selected[:, 2]
    return boxes[batch, index], scores[batch, label, index], label + 1


class SsdLite(nn.Module):
    """SSD: strided backbone, class/box heads on 16/8/4 maps, default boxes, softmax, per-class NMS, top-k."""

    maps = [(16, 8), (8, 16), (4, 32)]
    shapes = [(1.0, 1.0), (1.4, 0.7), (0.7, 1.4)]  # default boxes as multiples of the level's scale

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.stem = nn.Sequential(_conv(3, 8, 2), _conv(8, width, 2), _conv(width, width, 2))
        self.extra = nn.ModuleList([_conv(width, width, 2), _conv(width, width, 2)])
        count = len(self.shapes)
        self.cls = nn.ModuleList([nn.Conv2d(width, count * (CLASSES + 1), 3, 1, 1) for _ in self.maps])
        self.box = nn.ModuleList([nn.Conv2d(width, count * 4, 3, 1, 1) for _ in self.maps])
        levels = [(n, s, [(w * 2 * s, h * 2 * s) for w, h in self.shapes]) for n, s in self.maps]
        self.register_buffer("anchors", _anchors(levels))

    def forward(self, image: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        feats = [self.stem(image)]
        for layer in self.extra:
            feats.append(layer(feats[-1]))
        logits = torch.cat([head_to_rows(h(f), CLASSES + 1) for h, f in zip(self.cls, feats, strict=True)], 1)
        deltas = torch.cat([head_to_rows(h(f), 4) for h, f in zip(self.box, feats, strict=True)], 1)
        boxes = decode(deltas, self.anchors, (10.0, 10.0, 5.0, 5.0), SIZE_LIMIT)  # SSD's variances 0.1/0.2
        scores = torch.softmax(logits, -1)[..., 1:].transpose(1, 2)
        selected = Nms.apply(boxes, scores, 8, 0.45, 0.3)
        boxes, scores, labels = _pick(boxes, scores, selected)
        # keep the best 10 across classes; k follows the run-time count (Min of Shape and 10)
        k = torch.clamp(torch._shape_as_tensor(scores)[0], max=10)
        scores, order = torch.topk(scores, k)
        return boxes[order], scores, labels[order]


class RetinaLite(nn.Module):
    """RetinaNet: backbone + top-down FPN (P3-P5), shared sigmoid class / box subnets, 2 scales x 3 ratios."""

    strides = [8, 16, 32]
    shapes = shapes_for([1.0, 2 ** 0.5], [0.5, 1.0, 2.0])

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.c3 = nn.Sequential(_conv(3, 8, 2), _conv(8, 16, 2), _conv(16, 16, 2))
        self.c4 = _conv(16, 24, 2)
        self.c5 = _conv(24, 32, 2)
        self.lateral = nn.ModuleList([nn.Conv2d(c, width, 1) for c in (16, 24, 32)])
        self.smooth = nn.ModuleList([nn.Conv2d(width, width, 3, 1, 1) for _ in range(3)])
        count = len(self.shapes)
        self.cls = nn.Sequential(_conv(width, width), nn.Conv2d(width, count * CLASSES, 3, 1, 1))
        self.box = nn.Sequential(_conv(width, width), nn.Conv2d(width, count * 4, 3, 1, 1))
        levels = [(SIZE // s, s, [(w * 4 * s, h * 4 * s) for w, h in self.shapes]) for s in self.strides]
        self.register_buffer("anchors", _anchors(levels))

    def forward(self, image: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        c3 = self.c3(image)
        c4 = self.c4(c3)
        c5 = self.c5(c4)
        p5 = self.lateral[2](c5)
        p4 = self.lateral[1](c4) + nn.functional.interpolate(p5, scale_factor=2.0, mode="nearest")
        p3 = self.lateral[0](c3) + nn.functional.interpolate(p4, scale_factor=2.0, mode="nearest")
        feats = [s(p) for s, p in zip(self.smooth, (p3, p4, p5), strict=True)]
        logits = torch.cat([head_to_rows(self.cls(f), CLASSES) for f in feats], 1)
        deltas = torch.cat([head_to_rows(self.box(f), 4) for f in feats], 1)
        boxes = decode(deltas, self.anchors, (1.0, 1.0, 1.0, 1.0), SIZE_LIMIT).clamp(0.0, float(SIZE))
        scores = torch.sigmoid(logits).transpose(1, 2)
        return _pick(boxes, scores, Nms.apply(boxes, scores, 12, 0.5, 0.4))


class FasterLite(nn.Module):
    """Faster R-CNN: backbone, RPN (objectness, deltas, NMS to 32 proposals), RoiAlign 4x4, box head,
    class-specific decoding and a second NMS with one batch row per class."""

    shapes = shapes_for([32.0, 64.0], [0.5, 1.0, 2.0])

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.body = nn.Sequential(_conv(3, 8, 2), _conv(8, width, 2), _conv(width, width, 2))
        count = len(self.shapes)
        self.rpn = _conv(width, width)
        self.objectness = nn.Conv2d(width, count, 1)
        self.rpn_deltas = nn.Conv2d(width, count * 4, 1)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(width * 16, 64), nn.ReLU())
        self.cls = nn.Linear(64, CLASSES + 1)
        self.box = nn.Linear(64, CLASSES * 4)
        self.register_buffer("anchors", _anchors([(SIZE // 8, 8, self.shapes)]))

    def forward(self, image: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        feats = self.body(image)
        hidden = self.rpn(feats)
        objectness = head_to_rows(self.objectness(hidden), 1).transpose(1, 2)
        deltas = head_to_rows(self.rpn_deltas(hidden), 4)
        proposals = decode(deltas, self.anchors, (1.0, 1.0, 1.0, 1.0), SIZE_LIMIT).clamp(0.0, float(SIZE))
        keep = Nms.apply(proposals, objectness, 32, 0.7, -1e9)[:, 2]
        rois = proposals[0, keep]
        pooled = RoiAlign.apply(feats, rois, 4, 1.0 / 8, 2)
        hidden = self.head(pooled)
        scores = torch.softmax(self.cls(hidden), -1)[:, 1:].transpose(0, 1).unsqueeze(1)  # [C, 1, K]
        rois_deltas = self.box(hidden).reshape(-1, CLASSES, 4)
        boxes = decode(rois_deltas, rois.unsqueeze(1), (10.0, 10.0, 5.0, 5.0), SIZE_LIMIT)
        boxes = boxes.clamp(0.0, float(SIZE)).transpose(0, 1)  # [C, K, 4]: one NMS batch row per class
        selected = Nms.apply(boxes, scores, 10, 0.5, 0.35)
        return boxes[selected[:, 0], selected[:, 2]], scores[selected[:, 0], 0, selected[:, 2]], selected[:, 0] + 1
