"""transformers' model, built without weights and traced by ``torch.export``.

Parameters are created on the meta device (nothing is allocated or initialised) and then
stand as zero-stride CPU tensors of their shape, which cost one value each: the program
``torch.export`` makes reads their shapes and types only. Buffers the model computes itself
(rotary frequencies, causal masks) are real. The cache is passed as flat tensors, one key
and one value per layer, and returned so: the wrapper builds transformers' cache from them.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

from irconv_llm.huggingface.architectures import TEXT_GENERATION_WITH_PAST
from irconv_llm.huggingface.dynamic_rope import traceable_dynamic_rope

#: Sizes of the example inputs: none 0 or 1, which torch.export would specialise.
_BATCH, _LENGTH, _PAST = 2, 5, 3


@contextlib.contextmanager
def _parameters_on_meta() -> Iterator[None]:
    """Every parameter registered meanwhile moves to the meta device (buffers stay real)."""
    import torch

    original = torch.nn.Module.register_parameter

    def register(module: Any, name: str, param: Any) -> None:
        original(module, name, param)
        if param is not None and param.device.type != "meta":
            module._parameters[name] = torch.nn.Parameter(param.to("meta"), requires_grad=False)

    torch.nn.Module.register_parameter = register
    try:
        yield
    finally:
        torch.nn.Module.register_parameter = original


def empty_model(model_class: Any, config: Any) -> Any:
    """``model_class`` built from ``config`` in f32, parameters as shapes only (see the module)."""
    import torch
    from transformers.initialization import no_init_weights

    build = model_class.from_config if hasattr(model_class, "from_config") else model_class._from_config
    with _parameters_on_meta(), no_init_weights():
        for attention in ("sdpa", "eager"):  # sdpa: one op OpenVINO runs fused; eager: Gemma 2's soft-capping
            try:
                model = build(config, dtype=torch.float32, attn_implementation=attention, **_experts(config))
                break
            except ValueError:
                if attention == "eager":
                    raise
    for module in model.modules():
        for name, param in list(module._parameters.items()):
            if param is not None and param.device.type == "meta":
                stand_in = torch.zeros((), dtype=param.dtype).expand(param.shape)
                module._parameters[name] = torch.nn.Parameter(stand_in, requires_grad=False)
    model.tie_weights()
    return model.eval()


def _experts(config: Any) -> dict[str, str]:
    """Mixture-of-experts layers computed as every expert on every token
    (``dense_experts``; build and trace under ``dense_experts.registered()``): the default
    loop visits only the experts the example input routes to, a branch on tensor values that
    a trace cannot keep."""
    from irconv_llm.huggingface.dense_experts import IMPLEMENTATION

    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    experts = [getattr(text, n, None) for n in ("num_local_experts", "num_experts", "n_routed_experts")]
    return {"experts_implementation": IMPLEMENTATION} if any(experts) else {}


def parameter_aliases(model: Any) -> dict[str, list[str]]:
    """Every name of each parameter or buffer, by each name (tied weights share one tensor)."""
    groups: dict[int, list[str]] = {}
    for name, tensor in [*model.named_parameters(remove_duplicate=False), *model.named_buffers(remove_duplicate=False)]:
        groups.setdefault(id(tensor), []).append(name)
    return {name: names for names in groups.values() for name in names}


def export_decoder(model: Any, task: str) -> tuple[Any, list[str]]:
    """``torch.export`` of ``model`` behind a flat-cache wrapper; the program and its user
    input names (``input_ids``, ``attention_mask``, [``position_ids``], the cache)."""
    import torch
    from torch.export import Dim

    config = model.config
    with_past = task == TEXT_GENERATION_WITH_PAST
    takes_positions = "position_ids" in inspect.signature(model.forward).parameters
    layers, kv_heads, head_dim = _cache_geometry(config)
    past_length = _PAST if with_past else 0

    class FlatCache(torch.nn.Module):  # type: ignore[misc]  # torch is untyped to mypy (pyproject.toml)
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, position_ids: Any = None, past: Any = ()) -> Any:
            from transformers import DynamicCache

            keywords: dict[str, Any] = {"input_ids": input_ids, "attention_mask": attention_mask}
            if position_ids is not None:
                keywords["position_ids"] = position_ids
            if with_past:
                cache = DynamicCache()  # full layers: a sliding window is the attention mask's business
                for layer in range(layers):
                    cache.update(past[2 * layer], past[2 * layer + 1], layer)
                keywords.update(past_key_values=cache, use_cache=True)
            else:
                keywords["use_cache"] = False
            out = self.model(**keywords)
            if not with_past:
                return out.logits
            present = [t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)]
            return (out.logits, *present)

    total = past_length + _LENGTH
    inputs: dict[str, Any] = {
        "input_ids": torch.randint(3, max(4, config.vocab_size), (_BATCH, _LENGTH)),
        "attention_mask": torch.ones(_BATCH, total, dtype=torch.long),
    }
    dynamic: dict[str, Any] = {"input_ids": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}, "attention_mask": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}}
    if takes_positions:
        inputs["position_ids"] = torch.arange(past_length, total)[None].expand(_BATCH, _LENGTH)
        dynamic["position_ids"] = {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}
    if with_past:
        inputs["past"] = tuple(torch.zeros(_BATCH, kv_heads, _PAST, head_dim) for _ in range(2 * layers))
        dynamic["past"] = tuple({0: Dim.DYNAMIC, 2: Dim.DYNAMIC} for _ in range(2 * layers))
    with traceable_dynamic_rope(model):
        return _export_without_grad(FlatCache(), inputs, dynamic), list(inputs)


def export_encoder(model: Any) -> Any:
    """``torch.export`` of an encoder returning its last hidden state."""
    import torch
    from torch.export import Dim

    class LastHiddenState(torch.nn.Module):  # type: ignore[misc]  # torch is untyped to mypy (pyproject.toml)
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None) -> Any:
            keywords = {"input_ids": input_ids, "attention_mask": attention_mask}
            if token_type_ids is not None:
                keywords["token_type_ids"] = token_type_ids
            return self.model(**keywords).last_hidden_state

    inputs: dict[str, Any] = {
        "input_ids": torch.randint(3, max(4, model.config.vocab_size), (_BATCH, _LENGTH)),
        "attention_mask": torch.ones(_BATCH, _LENGTH, dtype=torch.long),
    }
    if "token_type_ids" in inspect.signature(model.forward).parameters:
        inputs["token_type_ids"] = torch.zeros(_BATCH, _LENGTH, dtype=torch.long)
    dynamic = {name: {0: Dim.DYNAMIC, 1: Dim.DYNAMIC} for name in inputs}
    return _export_without_grad(LastHiddenState(), inputs, dynamic)


def _export_without_grad(module: Any, inputs: dict[str, Any], dynamic: dict[str, Any]) -> Any:
    """``torch.export`` of ``module`` with gradients off. transformers computes the rotary
    frequencies under ``torch.no_grad()``: traced with gradients on, that switch is a
    ``wrap_with_set_grad_enabled`` sub-graph, which irconv-torch inlines by re-tracing the whole
    program through ``run_decompositions`` (as long again as the export). With gradients off
    already the switch changes nothing and is not recorded.

    The fake-tensor cache is off: every layer's cache tensors have shapes of their own
    symbols, so its entries are made for one layer and missed by the next (a quarter of the
    export's time on a 22-layer Llama, 10.6 s -> 8.1 s)."""
    import torch
    import torch._dynamo.config
    from irconv_torch.export import export_module

    with torch.no_grad(), torch._dynamo.config.patch(fake_tensor_cache_enabled=False):
        return export_module(module.eval(), inputs, dynamic)


def _cache_geometry(config: Any) -> tuple[int, int, int]:
    """Layers, KV heads and head size of ``config`` (a text config inside a multimodal one)."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    layers = text.num_hidden_layers
    heads = text.num_attention_heads
    kv_heads = getattr(text, "num_key_value_heads", None) or heads
    if getattr(text, "multi_query", False) and not getattr(text, "new_decoder_architecture", False):
        kv_heads = 1  # Falcon's multi-query attention
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // heads
    return layers, kv_heads, head_dim


__all__ = ["empty_model", "export_decoder", "export_encoder", "parameter_aliases"]
