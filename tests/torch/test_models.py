"""Whole models against torch eager: seeded random weights, randomised BatchNorm statistics."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn
from torch_support import check_module


def randomise_statistics(module: nn.Module) -> nn.Module:
    """BatchNorm running statistics and affine parameters away from their 0/1 defaults, so
    a wrong normalisation shows."""
    for layer in module.modules():
        if isinstance(layer, nn.modules.batchnorm._BatchNorm):
            layer.running_mean.uniform_(-0.5, 0.5)
            layer.running_var.uniform_(0.5, 1.5)
            layer.weight.data.uniform_(0.5, 1.5)
            layer.bias.data.uniform_(-0.5, 0.5)
    return module.eval()


class BasicBlock(nn.Module):
    def __init__(self, channels_in: int, channels: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels_in, channels, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.downsample = None
        if stride != 1 or channels_in != channels:
            self.downsample = nn.Sequential(nn.Conv2d(channels_in, channels, 1, stride, bias=False),
                                            nn.BatchNorm2d(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + identity)


class ResNetStyle(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 16, 1))
        self.layer2 = nn.Sequential(BasicBlock(16, 32, 2), BasicBlock(32, 32, 1))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, channels // 4, 1)
        self.fc2 = nn.Conv2d(channels // 4, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = nn.functional.hardsigmoid(self.fc2(nn.functional.relu(self.fc1(self.pool(x)))))
        return x * scale


class InvertedResidual(nn.Module):
    def __init__(self, channels: int, expanded: int) -> None:
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(channels, expanded, 1, bias=False), nn.BatchNorm2d(expanded), nn.Hardswish())
        self.depthwise = nn.Sequential(nn.Conv2d(expanded, expanded, 3, 1, 1, groups=expanded, bias=False),
                                       nn.BatchNorm2d(expanded), nn.Hardswish())
        self.se = SqueezeExcite(expanded)
        self.project = nn.Sequential(nn.Conv2d(expanded, channels, 1, bias=False), nn.BatchNorm2d(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.project(self.se(self.depthwise(self.expand(x))))


class MobileNetV3Style(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.blocks = nn.Sequential(InvertedResidual(16, 48), InvertedResidual(16, 64))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 32), nn.Hardswish(),
                                  nn.Dropout(0.2), nn.Linear(32, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(self.stem(x)))


def test_resnet_style_cnn(tmp_path: Path) -> None:
    model = randomise_statistics(ResNetStyle())
    check_module(model, torch.randn(2, 3, 64, 64), tmp_path, rtol=1e-3, atol=1e-4)


def test_resnet_style_cnn_with_a_dynamic_batch(tmp_path: Path) -> None:
    model = randomise_statistics(ResNetStyle())
    batch = torch.export.Dim("batch", min=1, max=8)
    check_module(model, torch.randn(2, 3, 32, 32), tmp_path, runs=[torch.randn(5, 3, 32, 32)],
                 dynamic_shapes=({0: batch},), rtol=1e-3, atol=1e-4)


def test_mobilenet_v3_style_cnn(tmp_path: Path) -> None:
    model = randomise_statistics(MobileNetV3Style())
    check_module(model, torch.randn(1, 3, 32, 32), tmp_path, rtol=1e-3, atol=1e-4)


class ViTStyle(nn.Module):
    """Patch embedding, a class token, position embeddings, pre-norm attention blocks."""

    def __init__(self, dim: int = 32, heads: int = 4, depth: int = 2) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 8, 8)
        self.cls = nn.Parameter(torch.randn(1, 1, dim))
        self.position = nn.Parameter(torch.randn(1, 17, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, 64, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = self.patch(x).flatten(2).transpose(1, 2)
        tokens = torch.cat([self.cls.expand(x.shape[0], -1, -1), tokens], dim=1) + self.position
        return self.head(self.norm(self.encoder(tokens))[:, 0])


def test_vit_style_attention(tmp_path: Path) -> None:
    check_module(ViTStyle(), torch.randn(2, 3, 32, 32), tmp_path, rtol=1e-3, atol=1e-4)


def test_bert_style_encoder_from_a_transformers_config(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64, max_position_embeddings=64)
    model = transformers.BertModel(config).eval()
    model.config.return_dict = False
    ids = torch.randint(0, 100, (2, 12))
    mask = torch.ones(2, 12, dtype=torch.int64)
    mask[1, 8:] = 0
    check_module(model, (ids, mask), tmp_path, rtol=1e-3, atol=1e-4)


def test_bert_style_encoder_with_dynamic_batch_and_sequence_length(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64, max_position_embeddings=64)
    model = transformers.BertModel(config).eval()
    model.config.return_dict = False
    batch, length = torch.export.Dim("batch", min=1, max=8), torch.export.Dim("seq", min=2, max=64)
    shapes = ({0: batch, 1: length}, {0: batch, 1: length})
    ids, mask = torch.randint(0, 100, (2, 12)), torch.ones(2, 12, dtype=torch.int64)
    other_mask = torch.ones(3, 20, dtype=torch.int64)
    other_mask[0, 15:] = 0
    check_module(model, (ids, mask), tmp_path, runs=[(torch.randint(0, 100, (3, 20)), other_mask)],
                 dynamic_shapes=shapes, rtol=1e-3, atol=1e-4)


class CausalLM(nn.Module):
    """The logits of a transformers causal LM (no KV cache)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=ids, attention_mask=mask, use_cache=False).logits


def test_llama_style_decoder_with_dynamic_batch_and_sequence_length(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    config._attn_implementation = "sdpa"
    model = CausalLM(transformers.LlamaForCausalLM(config).eval())
    batch, length = torch.export.Dim("batch", min=1, max=4), torch.export.Dim("seq", min=2, max=32)
    shapes = ({0: batch, 1: length}, {0: batch, 1: length})
    ids, mask = torch.randint(0, 100, (2, 10)), torch.ones(2, 10, dtype=torch.int64)
    padded = torch.ones(3, 7, dtype=torch.int64)
    padded[1, 5:] = 0  # right padding (a left-padded row attends to nothing: its logits are undefined)
    check_module(model, (ids, mask), tmp_path, runs=[(torch.randint(0, 100, (3, 7)), padded)],
                 dynamic_shapes=shapes, rtol=1e-3, atol=1e-4)


class Recurrent(nn.Module):
    def __init__(self, kind: str, bidirectional: bool, batch_first: bool) -> None:
        super().__init__()
        layer = nn.LSTM if kind == "lstm" else nn.GRU
        self.rnn = layer(8, 16, num_layers=2, bidirectional=bidirectional, batch_first=batch_first)
        self.head = nn.Linear(32 if bidirectional else 16, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        output, state = self.rnn(x)
        final = state[0] if isinstance(state, tuple) else state
        return self.head(output), final


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["forward", "bidirectional"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_first", "seq_first"])
def test_recurrent_layers(tmp_path: Path, kind: str, bidirectional: bool, batch_first: bool) -> None:
    model = Recurrent(kind, bidirectional, batch_first)
    shape = (2, 5, 8) if batch_first else (5, 2, 8)
    check_module(model, torch.randn(*shape), tmp_path, rtol=1e-4, atol=1e-5)


def test_lstm_with_a_dynamic_batch(tmp_path: Path) -> None:
    """(torch.export specialises an LSTM's sequence length, so only the batch is dynamic.)"""
    model = Recurrent("lstm", True, True)
    batch = torch.export.Dim("batch", min=1, max=16)
    check_module(model, torch.randn(2, 5, 8), tmp_path, runs=[torch.randn(7, 5, 8)],
                 dynamic_shapes=({0: batch},), rtol=1e-4, atol=1e-5)


class AddedBatchProducts(nn.Module):
    """``torch.baddbmm`` with the scalings Bloom's attention uses, and with ``beta=0``,
    where torch does not read ``input`` (its NaNs stay out of the result)."""

    def forward(self, bias: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        scaled = torch.baddbmm(bias, a, b, beta=1.0, alpha=0.25)
        weighted = torch.baddbmm(bias, a, b, beta=0.5, alpha=2.0)
        unread = torch.baddbmm(torch.full_like(bias, float("nan")), a, b, beta=0.0)
        return scaled + weighted + unread


def test_baddbmm(tmp_path: Path) -> None:
    inputs = (torch.randn(6, 1, 7), torch.randn(6, 5, 8), torch.randn(6, 8, 7))
    check_module(AddedBatchProducts(), inputs, tmp_path, rtol=1e-4, atol=1e-5)


class RepeatsAndReversals(nn.Module):
    """``repeat_interleave`` by a constant along an axis and flattened (what a mixture-of-
    experts layer does to its tokens), and ``Tensor.T`` of a 3-D tensor (every dim reversed)."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return x.repeat_interleave(2, dim=0), x.repeat_interleave(3, dim=-1), x.repeat_interleave(2), x.T


def test_repeat_interleave_and_numpy_transpose(tmp_path: Path) -> None:
    check_module(RepeatsAndReversals(), torch.randn(2, 3, 4), tmp_path, rtol=0, atol=0)
