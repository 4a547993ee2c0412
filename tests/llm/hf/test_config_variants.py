"""Configuration variants of the Hugging Face families that the per-family tests leave at their
defaults: rope scaling, partial rotary, sliding windows shorter than the prompt, soft-capping,
grouped-query ratios, tied embeddings, head sizes, biases, ALiBi, projections, checkpoint
dtypes and shards, folder contents, generation past the trained context. Each is converted,
run greedily by OpenVINO GenAI's LLMPipeline in f32 and compared with transformers' own
``generate`` on the same checkpoint. A small sample runs in the fast run, the rest is slow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hf_checkpoints import TEXT, VOCAB, checkpoint

NEW_TOKENS = 24
SHORT = "The quick brown fox"
LONG = " ".join(TEXT)  # about 60 tokens: longer than the 8-token windows below
EXACT = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"}
HALF = 8  # head_dim / 2 of the llama-like configs (64 / 4 heads)
#: a window shorter than LONG, its layers alternating with full attention where the family does
WINDOW = 8

#: id -> (family, checkpoint() keywords, prompts)
VARIANTS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "llama-rope-llama3": ("llama", dict(rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                                     "high_freq_factor": 4.0, "original_max_position_embeddings": 16}),
                          (SHORT, LONG)),
    "llama-rope-linear": ("llama", dict(rope_scaling={"rope_type": "linear", "factor": 4.0}), (SHORT,)),
    "llama-rope-dynamic": ("llama", dict(rope_scaling={"rope_type": "dynamic", "factor": 2.0},
                                         max_position_embeddings=32), (SHORT, LONG)),
    "qwen2-rope-yarn": ("qwen2", dict(rope_scaling={"rope_type": "yarn", "factor": 4.0,
                                                    "original_max_position_embeddings": 32}), (SHORT, LONG)),
    "phi3-longrope": ("phi3", dict(rope_scaling={"rope_type": "longrope", "short_factor": [1.0 + i / 8 for i in range(HALF)],
                                                 "long_factor": [2.0 + i / 4 for i in range(HALF)]},
                                   original_max_position_embeddings=32, max_position_embeddings=256), (LONG,)),
    "phi3-longrope-crossing": ("phi3", dict(rope_scaling={"rope_type": "longrope",
                                                          "short_factor": [1.0 + i / 8 for i in range(HALF)],
                                                          "long_factor": [2.0 + i / 4 for i in range(HALF)]},
                                            original_max_position_embeddings=32, max_position_embeddings=256),
                               (SHORT,)),
    "phi3-partial-rotary": ("phi3", dict(partial_rotary_factor=0.5), (SHORT,)),
    "stablelm-partial-rotary": ("stablelm", dict(partial_rotary_factor=0.25), (SHORT,)),
    "gpt_neox-rotary-pct": ("gpt_neox", dict(rotary_pct=0.25), (SHORT,)),
    "gpt_neox-parallel-off": ("gpt_neox", dict(use_parallel_residual=False), (SHORT,)),
    "mistral-window": ("mistral", dict(sliding_window=WINDOW), (SHORT, LONG)),
    "qwen2-window": ("qwen2", dict(use_sliding_window=True, sliding_window=WINDOW, max_window_layers=1,
                                   num_hidden_layers=3), (SHORT, LONG)),
    "starcoder2-window": ("starcoder2", dict(sliding_window=WINDOW), (LONG,)),
    "gemma2-window-softcap": ("gemma2", dict(sliding_window=WINDOW, attn_logit_softcapping=0.5,
                                             final_logit_softcapping=0.5), (SHORT, LONG)),
    "gemma3-window": ("gemma3", dict(sliding_window=WINDOW, num_hidden_layers=3, sliding_window_pattern=2), (LONG,)),
    "qwen3-kv1": ("qwen3", dict(num_key_value_heads=1), (SHORT,)),
    "llama-mqa": ("llama", dict(num_key_value_heads=1), (SHORT,)),
    "llama-mha": ("llama", dict(num_key_value_heads=4), (SHORT,)),
    "llama-tied": ("llama", dict(tie_word_embeddings=True), (SHORT,)),
    "llama-head-dim-32": ("llama", dict(head_dim=32), (SHORT,)),
    "llama-biases": ("llama", dict(attention_bias=True, mlp_bias=True), (SHORT,)),
    "qwen2-tied-mha": ("qwen2", dict(tie_word_embeddings=True, num_key_value_heads=4), (SHORT,)),
    "falcon-multi-query": ("falcon", dict(new_decoder_architecture=False, multi_query=True), (SHORT,)),
    "falcon-alibi": ("falcon", dict(new_decoder_architecture=False, multi_query=False, alibi=True, num_kv_heads=4), (SHORT,)),
    "falcon-parallel-off": ("falcon", dict(new_decoder_architecture=False, multi_query=True, parallel_attn=False, bias=True), (SHORT,)),
    "bloom-heads-8": ("bloom", dict(n_head=8), (SHORT,)),
    "opt-project": ("opt", dict(word_embed_proj_dim=32), (SHORT,)),
    "opt-post-norm": ("opt", dict(do_layer_norm_before=False), (SHORT,)),
    "gpt2-inverse-layer-idx": ("gpt2", dict(scale_attn_by_inverse_layer_idx=True, reorder_and_upcast_attn=True),
                               (SHORT,)),
    "gpt2-tied": ("gpt2", dict(tie_word_embeddings=True), (SHORT,)),
    "llama-bf16": ("llama", dict(dtype="bfloat16"), (SHORT,)),
    "llama-f16": ("llama", dict(dtype="float16"), (SHORT,)),
    "qwen2-bf16-sharded": ("qwen2", dict(dtype="bfloat16", max_shard_size="40KB"), (SHORT,)),
    "llama-past-context": ("llama", dict(max_position_embeddings=16), (LONG,)),
    "gemma-past-context": ("gemma", dict(max_position_embeddings=16), (SHORT,)),
}
#: variants irconv's folder does not yet generate as transformers does, and why (strict: a fix
#: turns them into failures to remove from here).
KNOWN_WRONG = {
    "phi3-longrope-crossing": "longrope, the sequence passing original_max_position_embeddings while generating "
                              "(13 + 20 tokens > 32): transformers then computes every position again with the "
                              "long factors (Phi-3 drops its cache); a KV cache keeps the keys rotated with the "
                              "short ones",
}
FAST = ("llama-rope-llama3", "mistral-window", "gemma2-window-softcap", "qwen2-bf16-sharded", "falcon-alibi")


def _variants() -> list[Any]:
    params = []
    for name in VARIANTS:
        marks = [] if name in FAST else [pytest.mark.slow]
        if name in KNOWN_WRONG:
            marks.append(pytest.mark.xfail(reason=KNOWN_WRONG[name], strict=True))
        params.append(pytest.param(name, id=name, marks=marks))
    return params


def _convert(folder: Path, out: Path) -> Path:
    from irconv import convert_model, save_model

    save_model(convert_model(str(folder), compress_to_fp16=False), f"{out}/")
    return out


def _config() -> Any:
    import openvino_genai

    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = config.min_new_tokens = NEW_TOKENS
    config.do_sample = False
    return config


def _genai_tokens(pipe: Any, ids: Any) -> list[int]:
    import numpy as np
    import openvino
    import openvino_genai

    tokens = openvino_genai.TokenizedInputs(openvino.Tensor(ids), openvino.Tensor(np.ones_like(ids)))
    return list(pipe.generate(tokens, _config()).tokens[0])


def _transformers_tokens(model: Any, ids: Any) -> list[int]:
    import torch

    with torch.no_grad():
        out = model.generate(torch.from_numpy(ids), attention_mask=torch.ones_like(torch.from_numpy(ids)),
                             max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, do_sample=False, pad_token_id=0)
    return out[0, ids.shape[1]:].tolist()


def _greedy_agrees(folder: Path, model: Any, prompts: tuple[str, ...], out: Path) -> None:
    import openvino_genai
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    pipe = openvino_genai.LLMPipeline(str(_convert(folder, out)), "CPU", **EXACT)
    for prompt in prompts:
        ids = tokenizer(prompt, return_tensors="np").input_ids
        assert _genai_tokens(pipe, ids) == _transformers_tokens(model, ids), prompt


@pytest.mark.parametrize("name", _variants())
def test_variant_generates_transformers_tokens(name: str, tmp_path: Path) -> None:
    family, keywords, prompts = VARIANTS[name]
    folder = tmp_path / "ck"
    model = checkpoint(family, folder, **keywords)
    _greedy_agrees(folder, model, prompts, tmp_path / "ov")


@pytest.mark.slow
def test_folder_without_generation_config(tmp_path: Path) -> None:
    folder = tmp_path / "ck"
    model = checkpoint("qwen2", folder)
    (folder / "generation_config.json").unlink()
    _greedy_agrees(folder, model, (SHORT,), tmp_path / "ov")


def test_added_special_tokens_and_chat_template(tmp_path: Path) -> None:
    """Special tokens added to the tokenizer (ids past the trained vocabulary) and a chat
    template: the folder's tokenizer gives transformers' ids for a templated conversation,
    and GenAI's text output is transformers' decoded greedy continuation."""
    import openvino_genai
    from transformers import AutoTokenizer

    folder = tmp_path / "ck"
    model = checkpoint("llama", folder, vocab_size=VOCAB + 8)
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    tokenizer.chat_template = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
                               "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    tokenizer.save_pretrained(str(folder))
    text = tokenizer.apply_chat_template([{"role": "user", "content": SHORT}], tokenize=False,
                                         add_generation_prompt=True)
    ids = tokenizer(text, return_tensors="np", add_special_tokens=False).input_ids
    assert VOCAB in ids[0] and VOCAB + 1 in ids[0]
    out = _convert(folder, tmp_path / "ov")
    ov_tokenizer = openvino_genai.Tokenizer(str(out))
    assert ov_tokenizer.encode(text, add_special_tokens=False).input_ids.data.tolist() == ids.tolist()
    pipe = openvino_genai.LLMPipeline(str(out), "CPU", **EXACT)
    expected = _transformers_tokens(model, ids)
    assert _genai_tokens(pipe, ids) == expected
    config = _config()
    config.apply_chat_template = False
    assert pipe.generate(text, config) == tokenizer.decode(expected, skip_special_tokens=True)
