"""Sampling images (``grid_sample``) and torchvision's detection operators
(``torchvision::nms``, ``torchvision::roi_align``), converted from one-op modules and compared with torch eager on the CPU. torchvision itself is
not needed: ``tests/torch/torchvision_cpu_shim.py`` declares the ops with plain-torch reference
kernels, and their fake kernels for ``torch.export`` are added here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from torch.nn import functional as F
from torch_support import Fn, check_module

if not hasattr(torch.ops.torchvision, "nms"):  # declared once per process, unless torchvision is there
    import torchvision_cpu_shim

    torchvision_cpu_shim.register_fake_kernels()


def boxes(count: int, size: float = 32.0) -> torch.Tensor:
    """``[count, 4]`` boxes (x1, y1, x2, y2) inside ``size x size``, many overlapping."""
    corner = torch.rand(count, 2) * size * 0.6
    extent = torch.rand(count, 2) * size * 0.4 + 1.0
    return torch.cat([corner, corner + extent], 1)


def rois(count: int, batch: int, size: float) -> torch.Tensor:
    """``[count, 5]`` regions: batch index, then a box inside ``size x size``."""
    return torch.cat([torch.randint(0, batch, (count, 1)).float(), boxes(count, size)], 1)


def grid(batch: int, height: int, width: int) -> torch.Tensor:
    """Sampling positions ``[batch, height, width, 2]``, some outside [-1, 1] (padding)."""
    return torch.rand(batch, height, width, 2) * 2.4 - 1.2


torch.manual_seed(0)
CASES: dict[str, tuple[Callable[..., Any], tuple[torch.Tensor, ...]]] = {
    "nms": (lambda b, s: torch.ops.torchvision.nms(b, s, 0.5), (boxes(40), torch.rand(40))),
    "nms_strict": (lambda b, s: torch.ops.torchvision.nms(b, s, 0.1), (boxes(30), torch.rand(30))),
    "nms_then_gather": (lambda b, s: b[torch.ops.torchvision.nms(b, s, 0.3)] * 2, (boxes(25), torch.rand(25))),
    "roi_align": (lambda x, r: torch.ops.torchvision.roi_align(x, r, 0.5, 3, 3, 2, False),
                  (torch.randn(2, 4, 16, 16), rois(6, 2, 32.0))),
    "roi_align_aligned_adaptive": (lambda x, r: torch.ops.torchvision.roi_align(x, r, 0.25, 4, 2, -1, True),
                                   (torch.randn(1, 3, 12, 10), rois(5, 1, 40.0))),
    "roi_align_small_regions": (lambda x, r: torch.ops.torchvision.roi_align(x, r * 0.1, 1.0, 2, 2, -1, False),
                                (torch.randn(2, 2, 8, 8), rois(4, 2, 8.0))),
    "grid_sample": (lambda x, g: F.grid_sample(x, g, align_corners=False), (torch.randn(1, 3, 8, 9), grid(1, 5, 4))),
    "grid_sample_aligned_border": (lambda x, g: F.grid_sample(x, g, padding_mode="border", align_corners=True),
                                   (torch.randn(2, 2, 6, 6), grid(2, 3, 7))),
    "grid_sample_nearest_reflection": (lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="reflection",
                                                                  align_corners=False),
                                       (torch.randn(1, 2, 5, 7), grid(1, 4, 4))),
    "grid_sample_bicubic": (lambda x, g: F.grid_sample(x, g, mode="bicubic", align_corners=True),
                            (torch.randn(1, 2, 6, 6), grid(1, 3, 3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_vision_op_matches_torch_eager(name: str, tmp_path: Path) -> None:
    fn, inputs = CASES[name]
    check_module(Fn(fn), inputs, tmp_path, rtol=1e-4, atol=1e-5)
