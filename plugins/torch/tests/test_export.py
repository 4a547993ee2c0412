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
    """torchvision's quantizable models' shape: quantize, a fused convolution and ReLU, a
    depthwise convolution added back through FloatFunctional, a classifier, dequantize."""

    def __init__(self) -> None:
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.skip = torch.ao.nn.quantized.FloatFunctional()
        self.fc = nn.Linear(8 * 6 * 6, 4)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.relu(self.conv(self.quant(x)))
        h = self.skip.add(h, self.depthwise(h))
        return self.dequant(self.fc(h.flatten(1)))


def _quantized(model: nn.Module) -> nn.Module:
    """``model`` through eager-mode post-training quantization (fbgemm/x86 kernels)."""
    torch.manual_seed(0)
    model = model.eval()
    torch.ao.quantization.fuse_modules(model, [["conv", "relu"]], inplace=True)
    model.qconfig = torch.ao.quantization.get_default_qconfig("x86")
    torch.ao.quantization.prepare(model, inplace=True)
    for _ in range(4):
        model(torch.randn(4, 3, 6, 6))
    return torch.ao.quantization.convert(model, inplace=True)


def test_an_eager_quantized_module_converts_and_matches_its_kernels(tmp_path: Path) -> None:
    import irconv
    import numpy as np
    from irconv.testing.runtime import compile_ir, emit_ir

    model = _quantized(QuantizableNet())
    notes: list[str] = []
    from irconv_torch.export import export_module

    export_module(model, (torch.randn(1, 3, 6, 6),), note=notes.append)
    assert any("quantized modules computed as float" in note for note in notes)
    compiled = compile_ir(emit_ir(irconv.convert_model(model, example_input=torch.randn(1, 3, 6, 6)),
                                  tmp_path / "model.xml"))
    step = model.fc.scale  # the output's quantization step
    for batch in (1, 3):
        x = torch.randn(batch, 3, 6, 6)
        with torch.no_grad():
            expected = model(x).numpy()
        actual = compiled([x.numpy()])[compiled.output(0)]
        # the same grid values; a value at a rounding tie may land one step away
        assert np.abs(actual - expected).max() <= step * 1.01
        assert (np.abs(actual - expected) > 1e-6).mean() < 0.1


def test_a_quantized_module_without_a_float_form_is_refused_in_one_line() -> None:
    import irconv
    import pytest
    from irconv.errors import UserError

    model = torch.ao.quantization.quantize_dynamic(nn.Sequential(nn.Linear(4, 4)), {nn.Linear})
    with pytest.raises(UserError) as failure:
        irconv.convert_model(model, example_input=torch.randn(1, 4))
    message = str(failure.value)
    assert "\n" not in message and "packed parameters" in message and "float model" in message, message


class QuantizedActivations(nn.Module):
    """A quantized BatchNorm, Hardswish and LeakyReLU, then a float Sigmoid applied to the
    quantized tensor (torch puts its output on a fixed grid of 1/256)."""

    def __init__(self) -> None:
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.hardswish = nn.Hardswish()
        self.leaky = nn.LeakyReLU(0.1)
        self.sigmoid = nn.Sigmoid()
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.leaky(self.hardswish(self.bn(self.conv(self.quant(x)))))
        return self.dequant(self.sigmoid(h))


def test_quantized_activations_and_float_modules_on_quantized_tensors_match(tmp_path: Path) -> None:
    import irconv
    import numpy as np
    from irconv.testing.runtime import compile_ir, emit_ir

    torch.manual_seed(0)
    model = QuantizedActivations().eval()
    model.bn.running_mean.uniform_(-0.5, 0.5)
    model.bn.running_var.uniform_(0.5, 1.5)
    model.qconfig = torch.ao.quantization.get_default_qconfig("x86")
    torch.ao.quantization.prepare(model, inplace=True)
    for _ in range(4):
        model(torch.randn(4, 3, 8, 8))
    torch.ao.quantization.convert(model, inplace=True)
    compiled = compile_ir(emit_ir(irconv.convert_model(model, example_input=torch.randn(1, 3, 8, 8)),
                                  tmp_path / "model.xml"))
    for batch in (1, 3):
        x = torch.randn(batch, 3, 8, 8)
        with torch.no_grad():
            expected = model(x).numpy()
        np.testing.assert_allclose(compiled([x.numpy()])[compiled.output(0)], expected, atol=1e-6)


def test_the_program_records_no_stack_traces_and_the_setting_is_restored() -> None:
    import torch.fx.config
    from irconv_torch.export import export_module

    class Small(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x) * 2

    program = export_module(Small(), (torch.randn(2, 3),))
    computed = [n for n in program.graph.nodes if n.op == "call_function"]
    assert computed and all(not n.meta.get("stack_trace") for n in computed)
    assert torch.fx.config.do_not_emit_stack_traces is False
    plain = torch.export.export(Small(), (torch.randn(2, 3),))  # torch's own default records them
    assert any(n.meta.get("stack_trace") for n in plain.graph.nodes if n.op == "call_function")
