"""What the torch sweep's family builders share: the ``Family`` record, a wrapper that calls a
``transformers`` model with keyword inputs, BatchNorm statistics made non-trivial, and builders
for text and vision models from small configs with random weights (nothing downloaded)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

Built = tuple[nn.Module, tuple[torch.Tensor, ...]]


@dataclass(frozen=True)
class Family:
    name: str
    source: str  # "transformers" or "torch"
    build: Callable[[], Built]


class FirstOutput(nn.Module):
    """A ``transformers`` model called with keyword inputs, returning its first output
    (``last_hidden_state`` or ``logits``) as one tensor."""

    def __init__(self, model: nn.Module, names: tuple[str, ...], **fixed: Any) -> None:
        super().__init__()
        self.model = model
        self.names = names
        self.fixed = fixed

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        out = self.model(**dict(zip(self.names, inputs, strict=True)), **self.fixed)
        return out[0] if isinstance(out, (tuple, list)) else next(iter(out.values()))


def randomise_statistics(module: nn.Module) -> nn.Module:
    """BatchNorm statistics and affine parameters away from 0/1, so BN is no identity."""
    for layer in module.modules():
        if isinstance(layer, nn.modules.batchnorm._BatchNorm) and layer.running_mean is not None:
            layer.running_mean.uniform_(-0.5, 0.5)
            layer.running_var.uniform_(0.5, 1.5)
            if layer.weight is not None:
                layer.weight.data.uniform_(0.5, 1.5)
                layer.bias.data.uniform_(-0.5, 0.5)
    return module.eval()


def text(model_class: str, config_class: str, *, mask: bool = True, decoder: bool = False,
          vocab: int = 512, seq: int = 16, **config: Any) -> Callable[[], Built]:
    def build() -> Built:
        import transformers

        cfg = getattr(transformers, config_class)(**config)
        cfg._attn_implementation = "sdpa" if supports_sdpa(model_class) else "eager"
        model = getattr(transformers, model_class)(cfg).eval()
        ids = torch.randint(1, vocab, (2, seq))
        fixed = {"use_cache": False} if decoder else {}
        if mask:
            attention = torch.ones(2, seq, dtype=torch.int64)
            attention[1, seq - 3:] = 0
            return FirstOutput(model, ("input_ids", "attention_mask"), **fixed).eval(), (ids, attention)
        return FirstOutput(model, ("input_ids",), **fixed).eval(), (ids,)
    return build


def supports_sdpa(model_class: str) -> bool:
    import transformers

    return bool(getattr(getattr(transformers, model_class), "supports_sdpa", False))


def vision(model_class: str, config_class: str, size: int = 32, channels: int = 3,
            input_name: str = "pixel_values", **config: Any) -> Callable[[], Built]:
    def build() -> Built:
        import transformers

        cfg = getattr(transformers, config_class)(**config)
        model = randomise_statistics(getattr(transformers, model_class)(cfg))
        return FirstOutput(model, (input_name,)).eval(), (torch.randn(1, channels, size, size),)
    return build


SMALL_TEXT = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                  vocab_size=512, max_position_embeddings=64)
SMALL_DECODER = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                     intermediate_size=128, vocab_size=512, max_position_embeddings=64)
