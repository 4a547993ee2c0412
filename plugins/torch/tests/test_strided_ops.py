"""``as_strided`` (a view of storage by sizes and strides) converted and compared with torch
eager: on contiguous, permuted and offset tensors; layouts it cannot read are one clear error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from irconv.errors import ConversionError
from torch_support import Fn, check_module


def overlapping_chunks(x: torch.Tensor) -> torch.Tensor:
    """Longformer's ``_chunk``: windows of 2w rows every w rows."""
    size, stride = list(x.size()), list(x.stride())
    size[1], stride[1] = size[1] * 2 - 1, stride[1] // 2
    return x.view(x.size(0), x.size(1) // 2, x.size(2) * 2, x.size(3)).as_strided(size=size, stride=stride)


CASES: dict[str, tuple[Callable[..., Any], tuple[torch.Tensor, ...]]] = {
    "overlapping_windows": (lambda a: a.as_strided((5, 4), (2, 1)) * 2, (torch.randn(12),)),
    "longformer_chunks": (lambda a: overlapping_chunks(a) + 1, (torch.randn(2, 4, 8, 4),)),
    "transposed_input": (lambda a: a.t().as_strided((3, 2), (1, 3)), (torch.randn(2, 6),)),
    "permuted_input": (lambda a: a.permute(2, 0, 1).as_strided((4, 4), (4, 1)), (torch.randn(2, 3, 4),)),
    "storage_offset": (lambda a: a.as_strided((2, 3), (3, 1), 4), (torch.randn(4, 3),)),
    "sliced_input_keeps_its_offset": (lambda a: a[1:].as_strided((2, 2), (2, 1)), (torch.randn(4, 3),)),
    "int64": (lambda a: a.as_strided((3, 3), (1, 2)), (torch.arange(12),)),
    "zero_stride_repeats": (lambda a: a.as_strided((3, 4), (0, 1)), (torch.randn(4),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_strided_matches_torch_eager(name: str, tmp_path: Path) -> None:
    fn, inputs = CASES[name]
    check_module(Fn(fn), inputs, tmp_path)


def test_as_strided_of_an_expanded_tensor_is_one_clear_error(tmp_path: Path) -> None:
    module = Fn(lambda a: a.expand(3, 4).as_strided((2, 2), (1, 1)))
    with pytest.raises(ConversionError, match="overlap or leave gaps"):
        check_module(module, (torch.randn(1, 4),), tmp_path)
