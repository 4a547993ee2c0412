"""A module converted without ``dynamic_shapes`` is dynamic where torch.export allows it (batch
and sequence dimensions ``Dim.AUTO``); ``static_shape=True`` keeps the example's shapes; what stayed
static is noted; a ``Dim`` the program does not allow is one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import irconv
import numpy as np
import pytest
import torch
from irconv.errors import UserError
from irconv.testing.runtime import compile_ir, emit_ir
from torch import nn


class ConvNet(nn.Module):
    """Convolutions, a global pooling and a classifier: batch, height and width are free."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.relu(self.conv(x)).mean((2, 3)))


class TinyEncoder(nn.Module):
    """Embedding, self-attention over a sequence, and a flatten of batch and sequence."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.qkv = nn.Linear(16, 48)
        self.out = nn.Linear(16, 16)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.embed(ids)
        batch, length, width = h.shape
        q, k, v = self.qkv(h).view(batch, length, 3, 2, width // 2).permute(2, 0, 3, 1, 4).unbind(0)
        scores = q @ k.transpose(-2, -1) / (width // 2) ** 0.5 + (1.0 - mask[:, None, None, :]) * -1e4
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, length, width)
        return self.out(attended).reshape(batch * length, width)


def _compiled(model: Any, tmp_path: Path, **keywords: Any) -> tuple[Any, list[str]]:
    graph = irconv.convert_model(model, **keywords)
    compiled = compile_ir(emit_ir(graph, tmp_path / "model.xml"))
    return compiled, [str(port.get_partial_shape()) for port in compiled.inputs]


def _agree(module: nn.Module, compiled: Any, inputs: tuple[torch.Tensor, ...]) -> None:
    with torch.no_grad():
        expected = module(*inputs).numpy()
    actual = compiled([t.numpy() for t in inputs])[compiled.output(0)]
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)


class AudioNet(nn.Module):
    """A 1-D convolution over time: batch and length are free, the channels are the weight's."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(3, 8, 5, padding=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x)).flatten(1)


def test_an_image_model_from_a_batch_of_one_runs_at_any_batch(tmp_path: Path) -> None:
    torch.manual_seed(0)
    module = ConvNet().eval()
    compiled, shapes = _compiled(module, tmp_path, example_input=torch.randn(1, 3, 16, 16))
    assert shapes == ["[?,3,16,16]"]  # batch 1 did not pin the batch; an image keeps its size
    for batch in (1, 3, 8):
        _agree(module, compiled, (torch.randn(batch, 3, 16, 16),))


def test_a_sequence_model_runs_at_any_batch_and_length(tmp_path: Path) -> None:
    torch.manual_seed(0)
    module = AudioNet().eval()
    compiled, shapes = _compiled(module, tmp_path, example_input=torch.randn(1, 3, 20))
    assert shapes == ["[?,3,?]"]  # the channels are the convolution's
    for batch, length in ((1, 20), (3, 7), (2, 41)):
        _agree(module, compiled, (torch.randn(batch, 3, length),))


def test_an_encoder_runs_at_any_batch_and_sequence_length(tmp_path: Path) -> None:
    torch.manual_seed(0)
    module = TinyEncoder().eval()
    example = (torch.randint(0, 50, (1, 7)), torch.ones(1, 7))
    compiled, shapes = _compiled(module, tmp_path, example_input=example)
    assert shapes == ["[?,?]", "[?,?]"]
    for batch, length in ((1, 7), (2, 5), (4, 12), (3, 1)):
        mask = (torch.rand(batch, length) > 0.3).float()
        _agree(module, compiled, (torch.randint(0, 50, (batch, length)), mask))


def test_static_shape_keeps_the_example_shapes(tmp_path: Path) -> None:
    torch.manual_seed(0)
    module = ConvNet().eval()
    compiled, shapes = _compiled(module, tmp_path, example_input=torch.randn(2, 3, 16, 16), static_shape=True)
    assert shapes == ["[2,3,16,16]"]
    _agree(module, compiled, (torch.randn(2, 3, 16, 16),))


def test_the_dimensions_torch_kept_static_are_noted_in_one_line() -> None:
    from irconv_torch.export import export_module
    from torch.fx.experimental.symbolic_shapes import is_concrete_int

    notes: list[str] = []
    program = export_module(AudioNet(), (torch.randn(1, 3, 20),), note=notes.append)
    (note,) = notes
    assert "\n" not in note and "x.shape[1]=3" in note and "conv" in note
    assert "x.shape[0]" not in note and "x.shape[2]" not in note  # those are dynamic
    (value,) = [n.meta["val"] for n in program.graph.nodes if n.op == "placeholder" and n.name == "x"]
    assert [is_concrete_int(size) for size in value.shape] == [False, True, False]


class Halves(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.reshape(x.shape[0] // 2, 2, -1)


@pytest.mark.parametrize(("module", "example", "dims", "expected"), [
    (ConvNet(), torch.randn(2, 3, 8, 8), ({1: torch.export.Dim("channels", max=8)},),
     ["channels (x.shape[1])", "needs it to be 3", "channels = 3"]),
    (Halves(), torch.randn(4, 3), ({0: torch.export.Dim("batch")},),
     ["batch (x.shape[0])", "x.shape[0] // 2", "batch = 2*_batch"]),
], ids=["specialised", "guard"])
def test_a_dim_the_program_does_not_allow_is_one_line(module: nn.Module, example: torch.Tensor, dims: Any,
                                                      expected: list[str]) -> None:
    with pytest.raises(UserError) as failure:
        irconv.convert_model(module, example_input=example, dynamic_shapes=dims)
    message = str(failure.value)
    assert "\n" not in message and len(message) < 400, message
    assert all(part in message for part in expected), message


class WindowAttention(nn.Module):
    """timm gcvit's window attention in its last stage: as many heads as tokens (16 of each)."""

    def __init__(self, width: int = 64, heads: int = 16) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, width = x.shape
        qkv = self.qkv(x).reshape(batch, tokens, 3, self.heads, width // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attended = (q * 0.5 @ k.transpose(-2, -1)).softmax(-1) @ v
        return attended.transpose(1, 2).reshape(batch, tokens, width)


def test_attention_with_as_many_heads_as_tokens_matches(tmp_path: Path) -> None:
    """OpenVINO's CPU plugin (2026.4) miscomputes attention followed by the heads/tokens
    transpose when both are 16 and the shapes are static (see docs/torch.md); the batch the
    export leaves dynamic keeps it on the path that computes it right."""
    torch.manual_seed(0)
    module = WindowAttention().eval()
    compiled, shapes = _compiled(module, tmp_path, example_input=torch.randn(1, 16, 64))
    _agree(module, compiled, (torch.randn(1, 16, 64),))
    assert shapes[0].startswith("[?,")  # a dynamic batch
    _agree(module, compiled, (torch.randn(3, 16, 64),))


class ReshapedByAnother(nn.Module):
    """``y`` viewed by ``x``'s batch: torch.export gives both batches one symbol."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.relu(x).sum(1, keepdim=True) + y.view(x.shape[0], 2, 2).sum(-1)


def test_dims_torch_proved_equal_across_inputs_share_a_symbol(tmp_path: Path) -> None:
    from irconv.ops import Parameter

    module = ReshapedByAnother()
    batch = torch.export.Dim("batch", min=1, max=16)
    example = (torch.randn(3, 2), torch.randn(3, 4))
    graph = irconv.convert_model(module, example_input=example, dynamic_shapes=({0: batch}, {0: batch}))
    names = [node.op.dim_names for node in graph.nodes() if isinstance(node.op, Parameter)]
    assert len(names) == 2 and names[0] is not None and names[0][0] == names[1][0]
    assert not any(node.type == "ShapeOf" for node in graph.nodes())  # y's view target is a constant
    compiled = compile_ir(emit_ir(graph, tmp_path / "model.xml"))
    for rows in (1, 5):
        _agree(module, compiled, (torch.randn(rows, 2), torch.randn(rows, 4)))


class ExpandedToAnotherBatch(nn.Module):
    """``table.expand(x.shape[0], -1, 1) @ x``: the rotary frequencies' expand of transformers."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", torch.arange(1.0, 9.0)[None, :, None])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.table.expand(x.shape[0], -1, 1) @ x


def test_an_expand_to_a_computed_size_keeps_that_dim(tmp_path: Path) -> None:
    """Only the literal -1 is raised to 1 in the computed target: the expanded batch is x's
    batch in shape inference, and an empty batch stays empty (a floor of 1 made it 1)."""
    from irconv.graph.symbolic import symbolic_shape

    module = ExpandedToAnotherBatch()
    example = (torch.randn(3, 1, 5),)
    kept = irconv.convert_model(module, example_input=example, disabled_transforms=["fold.symbolic_shapes"])
    expand = next(node for node in kept.nodes() if node.type == "Broadcast")
    x = next(node for node in kept.parameters())
    assert symbolic_shape(expand.out_port(0))[0] == symbolic_shape(x.out_port(0))[0]
    graph = irconv.convert_model(module, example_input=example)
    assert not any(node.type == "Broadcast" for node in graph.nodes())  # the MatMul broadcasts the batch itself
    compiled = compile_ir(emit_ir(graph, tmp_path / "model.xml"))
    for batch in (0, 1, 4):
        _agree(module, compiled, (torch.randn(batch, 1, 5),))
