"""Tiny Hugging Face checkpoint folders made here: a transformers config of each family with
small sizes and seeded random weights, saved by ``save_pretrained`` with a byte-level BPE
tokenizer trained by ``tokenizers`` on a few lines. Nothing is downloaded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

VOCAB = 320
TEXT = [
    "The quick brown fox jumps over the lazy dog.",
    "OpenVINO runs language models on CPUs and GPUs.",
    "A tokenizer splits text into pieces, and a model predicts the next piece.",
    "Hello world! How are you today? I am fine, thank you.",
    "Numbers like 12345 and 67890 appear in text too.",
]

_COMMON: dict[str, Any] = dict(vocab_size=VOCAB, bos_token_id=1, eos_token_id=2, pad_token_id=0, tie_word_embeddings=False)
_LLAMA_LIKE: dict[str, Any] = dict(
    hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
    max_position_embeddings=512, initializer_range=0.1,
)
#: family -> (config class name, its keywords).
FAMILIES: dict[str, tuple[str, dict[str, Any]]] = {
    "llama": ("LlamaConfig", _LLAMA_LIKE),
    "mistral": ("MistralConfig", {**_LLAMA_LIKE, "sliding_window": 4096}),
    "qwen2": ("Qwen2Config", _LLAMA_LIKE),
    "qwen3": ("Qwen3Config", {**_LLAMA_LIKE, "head_dim": 16}),
    "phi3": ("Phi3Config", _LLAMA_LIKE),
    "gemma": ("GemmaConfig", {**_LLAMA_LIKE, "head_dim": 16}),
    "gemma2": ("Gemma2Config", {**_LLAMA_LIKE, "head_dim": 16, "sliding_window": 4096}),
    "gemma3": ("Gemma3TextConfig", {**_LLAMA_LIKE, "head_dim": 16, "sliding_window": 4096}),
    "gpt2": ("GPT2Config", dict(n_embd=64, n_layer=2, n_head=4, n_positions=512, initializer_range=0.1)),
    "gpt_neox": ("GPTNeoXConfig", dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                       num_attention_heads=4, max_position_embeddings=512, initializer_range=0.1)),
    "falcon": ("FalconConfig", dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, initializer_range=0.1,
                                    new_decoder_architecture=True, num_kv_heads=2, alibi=False)),
    "opt": ("OPTConfig", dict(hidden_size=64, ffn_dim=128, num_hidden_layers=2, num_attention_heads=4,
                              max_position_embeddings=512, word_embed_proj_dim=64, init_std=0.1)),
    "bloom": ("BloomConfig", dict(hidden_size=64, n_layer=2, n_head=4, initializer_range=0.1)),
    "stablelm": ("StableLmConfig", {**_LLAMA_LIKE}),
    "starcoder2": ("Starcoder2Config", {**_LLAMA_LIKE, "sliding_window": 4096}),
    "olmo": ("OlmoConfig", _LLAMA_LIKE),
    "mixtral": ("MixtralConfig", {**_LLAMA_LIKE, "num_local_experts": 4, "num_experts_per_tok": 2}),
    "qwen2_moe": ("Qwen2MoeConfig", {**_LLAMA_LIKE, "num_experts": 4, "num_experts_per_tok": 2,
                                      "moe_intermediate_size": 64, "shared_expert_intermediate_size": 64}),
}


def tokenizer(folder: Path) -> Any:
    """A byte-level BPE tokenizer of VOCAB tokens trained on TEXT, saved into ``folder``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=["<pad>", "<s>", "</s>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(TEXT, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    fast.save_pretrained(str(folder))
    return fast


def checkpoint(family: str, folder: Path, *, seed: int = 0, dtype: str = "float32", max_shard_size: str | None = None,
               vary_constants: bool = True, **overrides: Any) -> Any:
    """A tiny random ``family`` model saved into ``folder`` (with the tokenizer), in ``dtype``
    (its weights rounded to it in the model returned too), in shards of at most
    ``max_shard_size`` if given, with the parameters transformers initialises to one value
    varied unless ``vary_constants`` is false (``_vary_constant_parameters``); the model, in f32."""
    import torch
    import transformers

    class_name, keywords = FAMILIES[family]
    config = getattr(transformers, class_name)(**{**_COMMON, **keywords, **overrides})
    torch.manual_seed(seed)
    try:
        model = transformers.AutoModelForCausalLM.from_config(config, attn_implementation="sdpa").eval()
    except ValueError:  # no sdpa implementation in this family (Gemma 2)
        model = transformers.AutoModelForCausalLM.from_config(config, attn_implementation="eager").eval()
    if vary_constants:
        _vary_constant_parameters(model)
    model.generation_config.do_sample = False
    shards = {} if max_shard_size is None else {"max_shard_size": max_shard_size}
    model.to(getattr(torch, dtype)).save_pretrained(str(folder), **shards)
    tokenizer(folder)
    return model.float()


def _vary_constant_parameters(model: Any) -> None:
    """Every parameter transformers initialises to one value (norm scales of 1, biases of 0)
    varied around it, as training leaves them: a scale of exactly 1 would let a converter
    drop the Multiply it stands in, and never exercise what folds it into the next weights."""
    import torch

    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.numel() > 1 and bool((parameter == parameter.flatten()[0]).all()):
                parameter.add_(torch.empty_like(parameter).uniform_(-0.2, 0.2))
