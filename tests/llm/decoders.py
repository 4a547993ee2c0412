"""Small transformer decoders with random weights, exported to ONNX with an explicit KV cache.

Nothing is downloaded: each model is built from a ``transformers`` config. The export wraps
the model in a module taking the cache as ``past_key_values.N.key/value`` tensors and
returning ``logits`` and ``present.N.key/value``, as Hugging Face's ONNX exports do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FAMILIES = ("llama", "qwen2", "phi3", "gemma")


@dataclass(frozen=True)
class Decoder:
    """An exported decoder: its file and the facts a generation loop needs."""

    path: Path
    layers: int
    kv_heads: int
    head_dim: int
    vocab: int

    def empty_cache(self, batch: int) -> dict[str, np.ndarray]:
        shape = (batch, self.kv_heads, 0, self.head_dim)
        return {name: np.zeros(shape, np.float32) for name in self.cache_inputs()}

    def cache_inputs(self) -> list[str]:
        return [f"past_key_values.{i}.{kind}" for i in range(self.layers) for kind in ("key", "value")]


def config(family: str, **overrides: Any) -> Any:
    """A small config of ``family`` (grouped-query attention: 4 heads, 2 KV heads)."""
    import transformers

    common: dict[str, Any] = dict(
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        initializer_range=0.1,  # peaked logits: greedy choices far from ties
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        tie_word_embeddings=False,
    )
    if family == "gemma":
        common["head_dim"] = 16  # Gemma's default is 256, whatever the hidden size
    common.update(overrides)
    classes = {
        "llama": transformers.LlamaConfig,
        "qwen2": transformers.Qwen2Config,
        "phi3": transformers.Phi3Config,
        "gemma": transformers.GemmaConfig,
    }
    return classes[family](**common)


def random_model(cfg: Any, seed: int = 0) -> Any:
    import torch
    import transformers

    torch.manual_seed(seed)
    return transformers.AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa").eval()


def export_onnx(model: Any, path: Path, dynamo: bool = False) -> Decoder:
    """``model`` with its cache as explicit inputs and outputs, exported to ``path`` by
    PyTorch's TorchScript-based exporter, or its dynamo-based one with ``dynamo``."""
    import torch
    from transformers import DynamicCache

    cfg = model.config
    layers = cfg.num_hidden_layers
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    kv_heads = cfg.num_key_value_heads

    class ExplicitCache(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, position_ids: Any, *past: Any) -> tuple[Any, ...]:
            cache = DynamicCache(config=cfg)
            for layer in range(layers):
                cache.update(past[2 * layer], past[2 * layer + 1], layer)
            out = self.model(
                input_ids=input_ids,
                attention_mask=attention_mask,
                position_ids=position_ids,
                past_key_values=cache,
                use_cache=True,
            )
            present = [t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)]
            return (out.logits, *present)

    decoder = Decoder(path, layers, kv_heads, head_dim, cfg.vocab_size)
    # A non-empty past, so the trace concatenates; dynamo specialises a dimension of size 1.
    batch, length, past_length = (2 if dynamo else 1), 5, 3
    past = [torch.randn(batch, kv_heads, past_length, head_dim) for _ in range(2 * layers)]
    inputs = (
        torch.randint(0, cfg.vocab_size, (batch, length)),
        torch.ones(batch, past_length + length, dtype=torch.long),
        torch.arange(past_length, past_length + length)[None].expand(batch, length),
        *past,
    )
    cache_names = decoder.cache_inputs()
    dynamic = {
        "input_ids": {0: "batch", 1: "sequence"},
        "attention_mask": {0: "batch", 1: "total"},
        "position_ids": {0: "batch", 1: "sequence"},
        **{name: {0: "batch", 2: "past"} for name in cache_names},
    }
    outputs = ["logits"] + [name.replace("past_key_values", "present") for name in cache_names]
    with torch.no_grad(), traceable_masks():
        torch.onnx.export(
            ExplicitCache(),
            inputs,
            str(path),
            input_names=["input_ids", "attention_mask", "position_ids", *cache_names],
            output_names=outputs,
            opset_version=18 if dynamo else 17,
            dynamo=dynamo,
            **({"dynamic_shapes": _dynamic_shapes(layers), "optimize": True} if dynamo else {"dynamic_axes": dynamic}),
        )
    return decoder


@contextmanager
def traceable_masks() -> Iterator[None]:
    """transformers' ``sdpa`` mask function, taking a traced query length.

    Under ``torch.jit.trace`` (the TorchScript-based exporter) ``inputs_embeds.shape[1]`` is a
    0-d tensor, which transformers 5.5 mistakes for the deprecated ``cache_position`` argument
    and indexes (``IndexError``). The wrapper passes it the ``cache_position`` it expects,
    ``arange(q_offset, q_offset + q_length)``, as optimum's exporter does. transformers 5.6
    dropped that reading (its deprecation said so) and takes the length as it is."""
    import torch
    import transformers
    from packaging.version import Version
    from transformers import masking_utils

    if Version(transformers.__version__).release >= (5, 6):
        yield
        return

    mapping = masking_utils.AttentionMaskInterface._global_mapping
    original = mapping["sdpa"]

    def sdpa_mask(*args: Any, q_length: Any = None, q_offset: Any = 0, **kwargs: Any) -> Any:
        if isinstance(q_length, torch.Tensor) and q_length.dim() == 0:
            q_length = torch.arange(q_offset, q_offset + q_length)
        return original(*args, q_length=q_length, q_offset=q_offset, **kwargs)

    mapping["sdpa"] = sdpa_mask
    try:
        yield
    finally:
        mapping["sdpa"] = original


def _dynamic_shapes(layers: int) -> dict[str, Any]:
    """The dynamo exporter's spelling of the dynamic axes (by ``forward``'s argument names)."""
    from torch.export import Dim

    batch, sequence, total, past = (Dim(name) for name in ("batch", "sequence", "total", "past"))
    return {
        "input_ids": {0: batch, 1: sequence},
        "attention_mask": {0: batch, 1: total},
        "position_ids": {0: batch, 1: sequence},
        "past": ({0: batch, 2: past},) * (2 * layers),
    }


def exported(family: str, directory: Path, dynamo: bool = False, **overrides: Any) -> Decoder:
    """A random ``family`` decoder exported into ``directory`` (by the dynamo-based exporter
    with ``dynamo``)."""
    import warnings

    name = f"{family}_dynamo.onnx" if dynamo else f"{family}.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return export_onnx(random_model(config(family, **overrides)), directory / name, dynamo)
