"""Folders of grouped-KV, sliding-window and ALiBi (Bloom) checkpoints rewritten by OpenVINO's
SDPA-to-PagedAttention transformation (what GenAI's default backend runs on CPU): every
attention becomes PagedAttention with its layer's window, and GenAI's PagedAttention backend
generates transformers' greedy tokens from a prompt longer than the window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openvino_genai")
pytest.importorskip("openvino_tokenizers")

from hf_checkpoints import checkpoint

WINDOW = 4
PROMPT = "The quick brown fox jumps over the lazy dog. Hello world!"  # 40 tokens, ten windows
NEW_TOKENS = 16
#: id: family, its overrides (two layers, four query heads sharing two KV heads), each layer's window (0: none).
CASES = {
    "llama": ("llama", {}, [0, 0]),
    "qwen2": ("qwen2", dict(sliding_window=WINDOW, use_sliding_window=True, max_window_layers=1), [0, WINDOW]),
    "gemma3": ("gemma3", dict(sliding_window=WINDOW, layer_types=["sliding_attention", "full_attention"]), [WINDOW, 0]),
    # attention on heads folded into the batch, its ALiBi bias the slopes PagedAttention takes
    "bloom": ("bloom", {}, [0, 0]),
    "bloom-12-heads": ("bloom", dict(hidden_size=96, n_head=12), [0, 0]),  # slopes not all powers of two
}


def _windows(xml: Path) -> list[int]:
    """The sliding window of each PagedAttention node of the rewritten model, in order."""
    import openvino as ov
    from irconv.runtime import compile_for_comparison
    from openvino._offline_transformations import paged_attention_transformation

    model = ov.Core().read_model(xml)
    paged_attention_transformation(model)
    types = [node.get_type_name() for node in model.get_ordered_ops()]
    assert "ScaledDotProductAttention" not in types
    attention = [node for node in model.get_ordered_ops() if node.get_type_name() == "PagedAttentionExtension"]
    return [int(compile_for_comparison(ov.Model([node.input(10).get_source_output()], []))({})[0])
            for node in attention]  # input 10: sliding_window


@pytest.mark.parametrize(("family", "overrides", "windows"), CASES.values(), ids=CASES.keys())
def test_paged_attention_backend_generates_transformers_tokens(family: str, overrides: dict[str, Any],
                                                               windows: list[int], tmp_path: Path) -> None:
    import openvino
    import openvino_genai
    import torch
    from irconv import convert_model, save_model
    from irconv.runtime import COMPARISON_PRECISION
    from transformers import AutoTokenizer

    folder, out = tmp_path / "ck", tmp_path / "ov"
    model = checkpoint(family, folder, **overrides)
    save_model(convert_model(str(folder), compress_to_fp16=False), f"{out}/")
    assert _windows(out / "openvino_model.xml") == windows

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    encoded = tokenizer(PROMPT, return_tensors="pt")
    assert encoded.input_ids.shape[1] > 2 * WINDOW
    with torch.no_grad():
        expected = model.generate(**encoded, max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, do_sample=False,
                                  pad_token_id=tokenizer.pad_token_id)[0, encoded.input_ids.shape[1]:].tolist()
    scheduler = openvino_genai.SchedulerConfig()  # a scheduler: the continuous-batching (PagedAttention) backend
    scheduler.cache_size = 1
    pipe = openvino_genai.LLMPipeline(str(out), "CPU", scheduler_config=scheduler, **dict(COMPARISON_PRECISION))
    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = config.min_new_tokens = NEW_TOKENS
    config.do_sample = False
    inputs = openvino_genai.TokenizedInputs(openvino.Tensor(encoded.input_ids.numpy()),
                                            openvino.Tensor(encoded.attention_mask.numpy()))
    assert list(pipe.generate(inputs, config).tokens[0]) == expected
