"""Squeezes in programs with a dynamic dimension: the IR compiles on CPU and matches torch
eager at sizes other than the exported one (OpenVINO's CPU plugin does not implement
``Squeeze-15`` with ``allow_axis_skip`` once a dimension is dynamic)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import irconv
import numpy as np
import pytest
import torch
from irconv.testing.runtime import compile_ir, emit_ir
from torch import nn


class SqueezeAfterUnsqueeze(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x.unsqueeze(0) * 2).squeeze(0)


class SqueezeSymbolic(nn.Module):
    """squeeze(1) of a dim of symbolic size: torch traces it as not 1 and keeps it."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.squeeze(1) * 2


class SqueezeAll(nn.Module):
    """squeeze() of every dim: the static 1s go, the symbolic one stays."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.squeeze() + 1


class SelfAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attention(x, x, x)[0]


CASES: dict[str, tuple[nn.Module, tuple[int, ...], int, list[tuple[int, ...]]]] = {
    # module, example shape, its dynamic axis, other shapes to run
    "unsqueeze_then_squeeze": (SqueezeAfterUnsqueeze(), (2, 5), 1, [(2, 3), (2, 11)]),
    "squeeze_of_a_symbolic_dim": (SqueezeSymbolic(), (2, 5, 3), 1, [(2, 8, 3)]),
    "squeeze_all": (SqueezeAll(), (1, 4, 1, 3), 1, [(1, 9, 1, 3)]),
    "multihead_attention": (SelfAttention(), (1, 7, 16), 1, [(1, 3, 16), (1, 12, 16)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dynamic_squeeze_compiles_and_matches_torch_eager(name: str, tmp_path: Path) -> None:
    module, shape, axis, others = CASES[name]
    module = module.eval()
    example = torch.randn(shape)
    dims: Any = ({axis: torch.export.Dim("S", min=2, max=64)},)
    graph = irconv.convert_model(module, example_input=(example,), dynamic_shapes=dims)
    compiled = compile_ir(emit_ir(graph, tmp_path / "model.xml"))  # f32 inference precision
    for run in [shape, *others]:
        x = torch.randn(run)
        with torch.no_grad():
            want = module(x).numpy()
        got = compiled([x.numpy()])[compiled.output(0)]
        assert got.shape == want.shape, (run, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
