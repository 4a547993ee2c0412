"""Detection building blocks shared by the three networks: ONNX-exportable NMS/RoiAlign, anchors, box coders.

Only imported by ``build_models.py`` (needs torch); the tests read the committed .onnx files.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor


def _iou(box: Tensor, others: Tensor) -> Tensor:
    lo = torch.maximum(box[:2], others[:, :2])
    hi = torch.minimum(box[2:], others[:, 2:])
    inter = (hi - lo).clamp(min=0).prod(dim=1)
    area = (box[2:] - box[:2]).prod()
    areas = (others[:, 2:] - others[:, :2]).prod(dim=1)
    return inter / (area + areas - inter)


def reference_nms(boxes: Tensor, scores: Tensor, max_out: int, iou: float, score_thr: float) -> Tensor:
    """Greedy per-(batch, class) NMS in ONNX's output layout [K, 3] = (batch, class, box index)."""
    picked: list[list[int]] = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            order = [int(i) for i in torch.argsort(scores[b, c], descending=True) if scores[b, c, i] > score_thr]
            kept: list[int] = []
            for i in order:
                if len(kept) == max_out:
                    break
                if not kept or bool((_iou(boxes[b, i], boxes[b, kept]) <= iou).all()):
                    kept.append(i)
            picked += [[b, c, i] for i in kept]
    return torch.tensor(picked, dtype=torch.int64).reshape(-1, 3)


class Nms(torch.autograd.Function):
    """Exported as one ONNX NonMaxSuppression; ``forward`` only serves the tracer."""

    @staticmethod
    def forward(ctx, boxes: Tensor, scores: Tensor, max_out: int, iou: float, score_thr: float) -> Tensor:  # type: ignore[override]
        return reference_nms(boxes, scores, max_out, iou, score_thr)

    @staticmethod
    def symbolic(g, boxes, scores, max_out: int, iou: float, score_thr: float):  # type: ignore[no-untyped-def]
        const = lambda v, dtype: g.op("Constant", value_t=torch.tensor([v], dtype=dtype))  # noqa: E731
        return g.op("NonMaxSuppression", boxes, scores, const(max_out, torch.int64), const(iou, torch.float32),
                    const(score_thr, torch.float32), center_point_box_i=0)


def reference_roi_align(features: Tensor, rois: Tensor, size: int, scale: float, ratio: int) -> Tensor:
    """Average of ratio x ratio bilinear samples per bin, half-pixel coordinates (ONNX opset 16 default)."""
    height, width = features.shape[-2:]
    out = []
    for roi in rois * scale - 0.5:
        steps = (torch.arange(size * ratio, dtype=torch.float32) + 0.5) / (size * ratio)
        xs = roi[0] + steps * (roi[2] - roi[0])
        ys = roi[1] + steps * (roi[3] - roi[1])
        grid = torch.stack(torch.meshgrid((xs + 0.5) / width * 2 - 1, (ys + 0.5) / height * 2 - 1, indexing="xy"), -1)
        sampled = torch.nn.functional.grid_sample(features, grid[None], align_corners=False)
        out.append(torch.nn.functional.avg_pool2d(sampled, ratio)[0])
    return torch.stack(out) if out else features.new_zeros((0, features.shape[1], size, size))


class RoiAlign(torch.autograd.Function):
    """Exported as one ONNX RoiAlign (batch 0 for every roi); ``forward`` only serves the tracer."""

    @staticmethod
    def forward(ctx, features: Tensor, rois: Tensor, size: int, scale: float, ratio: int) -> Tensor:  # type: ignore[override]
        return reference_roi_align(features, rois, size, scale, ratio)

    @staticmethod
    def symbolic(g, features, rois, size: int, scale: float, ratio: int):  # type: ignore[no-untyped-def]
        count = g.op("Gather", g.op("Shape", rois), g.op("Constant", value_t=torch.tensor([0])), axis_i=0)
        batch = g.op("ConstantOfShape", count, value_t=torch.tensor([0], dtype=torch.int64))
        return g.op("RoiAlign", features, rois, batch, output_height_i=size, output_width_i=size,
                    spatial_scale_f=scale, sampling_ratio_i=ratio, mode_s="avg",
                    coordinate_transformation_mode_s="half_pixel")


def grid_anchors(size: int, stride: int, shapes: list[tuple[float, float]]) -> np.ndarray:
    """Anchors (x1, y1, x2, y2) centred on each cell of a size x size map, cell-major, ``shapes`` = (w, h)."""
    centres = (np.arange(size, dtype=np.float32) + 0.5) * stride
    cy, cx = np.meshgrid(centres, centres, indexing="ij")
    wh = np.array(shapes, np.float32)
    ctr = np.stack([cx, cy], -1).reshape(-1, 1, 2)
    return np.concatenate([ctr - wh / 2, ctr + wh / 2], -1).reshape(-1, 4)


def shapes_for(scales: list[float], ratios: list[float]) -> list[tuple[float, float]]:
    """(w, h) for every scale x aspect ratio (h / w), area scale**2."""
    return [(s / math.sqrt(r), s * math.sqrt(r)) for s in scales for r in ratios]


def decode(deltas: Tensor, anchors: Tensor, weights: tuple[float, float, float, float], limit: float) -> Tensor:
    """Centre/size deltas applied to (x1, y1, x2, y2) anchors; dw/dh capped above only (exp overflow)."""
    size = anchors[..., 2:] - anchors[..., :2]
    centre = anchors[..., :2] + 0.5 * size
    wxy, wwh = torch.tensor(weights[:2]), torch.tensor(weights[2:])
    new_centre = deltas[..., :2] / wxy * size + centre
    # clamp(max=) exports Clip(x, '', max): the empty-optional-input case of issue 13
    new_size = torch.exp(torch.clamp(deltas[..., 2:] / wwh, max=limit)) * size
    return torch.cat([new_centre - 0.5 * new_size, new_centre + 0.5 * new_size], -1)


def head_to_rows(x: Tensor, width: int) -> Tensor:
    """[1, A*width, H, W] conv output to [1, H*W*A, width] rows, anchor-fastest like ``grid_anchors``."""
    return x.permute(0, 2, 3, 1).reshape(x.shape[0], -1, width)
