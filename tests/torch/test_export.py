"""Exporting a ``torch.nn.Module``: Python branches on tensor values stop ``torch.export``; the
module is exported again taking the example input's branch, and the user is told."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn
from torch_support import check_module


class BranchesOnValues(nn.Module):
    """Longformer's pattern: ``if mask.any():`` chooses a computation."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if mask.any():
            return x * 2 + mask
        return x - 1


def test_a_branch_on_tensor_values_is_taken_as_for_the_example_input(tmp_path: Path) -> None:
    x, mask = torch.randn(2, 5), torch.tensor([[0.0] * 4 + [1.0]] * 2)
    check_module(BranchesOnValues(), (x, mask), tmp_path, runs=[(torch.randn(2, 5), mask.roll(1, -1))])


def test_the_user_is_told_that_the_ir_holds_the_examples_branch_only() -> None:
    from irconv_torch.export import export_module

    notes: list[str] = []
    x, mask = torch.randn(2, 5), torch.zeros(2, 5)
    program = export_module(BranchesOnValues(), (x, mask), note=notes.append)
    assert torch.allclose(program.module()(x, mask), x - 1)
    assert len(notes) == 1 and "BranchesOnValues" in notes[0] and "branches" in notes[0]


def test_a_module_without_value_branches_exports_without_a_note() -> None:
    from irconv_torch.export import export_module

    notes: list[str] = []
    export_module(nn.Linear(3, 2), (torch.randn(1, 3),), note=notes.append)
    assert not any("branches" in note for note in notes)


class QuantizableNet(nn.Module):
    """torchvision's quantizable models' shape: quantize, a convolution, dequantize."""

    def __init__(self) -> None:
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4, 2)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.dequant(self.conv(self.quant(x))).mean((2, 3)))


def test_an_eager_quantized_module_is_refused_in_one_line_saying_what_to_convert() -> None:
    import irconv
    import pytest
    from irconv.errors import UserError

    model = QuantizableNet().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig("x86")
    model.fc.qconfig = None
    torch.ao.quantization.prepare(model, inplace=True)
    model(torch.randn(2, 3, 8, 8))
    torch.ao.quantization.convert(model, inplace=True)  # conv: packed parameters
    with pytest.raises(UserError) as failure:
        irconv.convert_model(model, example_input=torch.randn(1, 3, 8, 8))
    message = str(failure.value)
    assert "\n" not in message and "conv (quantized Conv2d)" in message and "float model" in message, message
