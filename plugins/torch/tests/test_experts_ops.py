"""Mixture-of-experts ops converted and compared with torch eager: ``histc`` (tokens per
expert) and the grouped matrix product of rows sorted by expert."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from torch_support import Fn, check_module

HISTC: dict[str, tuple[Callable[..., Any], tuple[torch.Tensor, ...]]] = {
    "expert_counts": (lambda a: torch.histc(a.float(), bins=4, min=0, max=3), (torch.randint(0, 4, (20,)),)),
    "values_outside_the_range_are_left_out": (lambda a: torch.histc(a, bins=5, min=-1, max=1), (torch.randn(6, 7),)),
    "range_of_the_data": (lambda a: torch.histc(a, bins=7), (torch.randn(3, 11),)),
    "single_valued_data": (lambda a: torch.histc(a * 0 + 2, bins=3), (torch.randn(5),)),
}


@pytest.mark.parametrize("name", sorted(HISTC))
def test_histc_matches_torch_eager(name: str, tmp_path: Path) -> None:
    fn, inputs = HISTC[name]
    check_module(Fn(fn), inputs, tmp_path)


def test_grouped_mm_fallback_matches_torch_eager(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    import transformers.integrations.moe  # noqa: F401  (registers torch.ops.transformers.grouped_mm_fallback)

    weight = torch.randn(4, 8, 6)

    def grouped(rows: torch.Tensor, experts: torch.Tensor) -> torch.Tensor:
        counts = torch.histc(experts.float(), bins=4, min=0, max=3)
        ends = torch.cumsum(counts, 0).to(torch.int32)
        return torch.ops.transformers.grouped_mm_fallback(rows, weight, ends)

    experts = torch.tensor([0, 0, 1, 3, 3, 3, 5])  # sorted; expert 5 is past the last: a zero row
    check_module(Fn(grouped), (torch.randn(7, 8), experts), tmp_path, runs=[(torch.randn(7, 8), experts.clamp(max=2))])

