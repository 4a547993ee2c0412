"""A small Llama trained for a few hundred steps on CPU, so its perplexity means something.

Text: the standard library's docstrings (``tests/llm/corpus.py``), the last tenth of the
paragraphs held out for evaluation; a byte-level BPE tokenizer trained on the rest. The
model (a ``transformers`` Llama config, seeded) learns next-token prediction on random
windows of the training stream with AdamW, then is exported to ONNX without a KV cache
(``input_ids``, ``attention_mask``, ``position_ids`` -> ``logits``) beside its
``tokenizer.json``. Everything lands in one folder and is reused when already there.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "llm"))


@dataclass(frozen=True)
class Trained:
    """The exported model, its tokenizer, the text split, and how training went."""

    onnx: Path
    tokenizer: Path
    calibration: list[str]
    held_out: list[str]
    facts: dict[str, Any]


def shape(hidden: int, layers: int, vocab: int) -> dict[str, Any]:
    return {
        "vocab_size": vocab,
        "hidden_size": hidden,
        "intermediate_size": 3 * hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": max(1, hidden // 32),
        "num_key_value_heads": max(1, hidden // 64),
        "max_position_embeddings": 512,
        "initializer_range": 0.02,
        "tie_word_embeddings": False,
        "pad_token_id": 0,
        "bos_token_id": 1,
        "eos_token_id": 2,
    }


def trained(
    folder: Path, hidden: int, layers: int, vocab: int, steps: int, window: int = 128, batch: int = 8, seed: int = 0
) -> Trained:
    import corpus

    folder.mkdir(parents=True, exist_ok=True)
    lines = corpus.paragraphs()
    split = len(lines) * 9 // 10
    train, held_out = lines[:split], lines[split:]
    onnx, facts_file = folder / "model.onnx", folder / "training.json"
    tokenizer = folder / "tokenizer.json"
    if not (onnx.exists() and facts_file.exists() and tokenizer.exists()):
        corpus.train_tokenizer(train, vocab, folder)
        facts = _train_and_export(folder, train, held_out, shape(hidden, layers, vocab), steps, window, batch, seed)
        facts_file.write_text(json.dumps(facts))
    return Trained(onnx, tokenizer, train, held_out, json.loads(facts_file.read_text()))


def _train_and_export(
    folder: Path, train: list[str], held_out: list[str], config: dict[str, Any], steps: int, window: int, batch: int, seed: int
) -> dict[str, Any]:
    import torch
    import transformers
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    stream = np.concatenate([np.asarray(item.ids + [2], np.int64) for item in tokenizer.encode_batch(train)])
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # a tiny model: one thread is as fast, and other work shares the cores
    rng = np.random.default_rng(seed)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**config))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, 3e-3, total_steps=steps, pct_start=0.1)
    start = time.perf_counter()
    model.train()
    for step in range(steps):
        offsets = rng.integers(0, stream.size - window - 1, batch)
        ids = torch.from_numpy(np.stack([stream[o : o + window] for o in offsets]))
        loss = model(input_ids=ids, labels=ids).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"  step {step}: loss {loss.item():.3f}", flush=True)
    seconds = time.perf_counter() - start
    model.eval()
    _export(model, folder / "model.onnx")
    return {"seed": seed, "steps": steps, "train_tokens": int(stream.size), "final_loss": float(loss.item()), "seconds": seconds,
            "parameters": int(sum(p.numel() for p in model.parameters())), **config}  # fmt: skip


def _export(model: Any, path: Path) -> None:
    import warnings

    import torch

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, position_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False
            ).logits

    inputs = (torch.randint(3, 100, (1, 8)), torch.ones(1, 8, dtype=torch.long), torch.arange(8)[None])
    axes = {"batch": 0, "sequence": 1}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Logits(),
            inputs,
            str(path),
            input_names=["input_ids", "attention_mask", "position_ids"],
            output_names=["logits"],
            opset_version=17,
            dynamo=False,
            dynamic_axes={name: {i: k for k, i in axes.items()} for name in ("input_ids", "attention_mask", "position_ids")},
        )
