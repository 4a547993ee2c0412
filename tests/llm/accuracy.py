"""Logits of a prompt batch: onnxruntime on the exported model against an OpenVINO IR."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from decoders import Decoder
from irconv.runtime import compile_for_comparison


def prompts(decoder: Decoder, count: int = 8, length: int = 16, seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).integers(3, decoder.vocab, (count, 1, length))


def reference_logits(decoder: Decoder, batch: np.ndarray) -> np.ndarray:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(decoder.path), providers=["CPUExecutionProvider"])
    results = []
    for ids in batch:
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones(ids.shape, np.int64),
            "position_ids": np.arange(ids.shape[1])[None],
        }
        results.append(session.run(["logits"], feeds | decoder.empty_cache(1))[0])
    return np.stack(results)


def openvino_logits(decoder: Decoder, xml: Path, batch: np.ndarray) -> np.ndarray:
    """Logits of each prompt run alone through ``xml``: a stateful IR after a reset, or a
    stateless one given a one-position past that the attention mask hides (the CPU plugin
    mishandles an empty past tensor)."""
    compiled = compile_for_comparison(xml)
    names = set().union(*(port.get_names() for port in compiled.inputs))
    results = []
    for ids in batch:
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones(ids.shape, np.int64),
            "position_ids": np.arange(ids.shape[1])[None],
        }
        if "beam_idx" in names:
            feeds["beam_idx"] = np.zeros(1, np.int32)
        else:
            hidden = (1, decoder.kv_heads, 1, decoder.head_dim)
            feeds |= {name: np.zeros(hidden, np.float32) for name in decoder.cache_inputs()}
            feeds["attention_mask"] = np.concatenate([np.zeros((1, 1), np.int64), feeds["attention_mask"]], 1)
        request = compiled.create_infer_request()
        results.append(np.array(request.infer(feeds)[compiled.output("logits")]))
    return np.stack(results)


def relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    return float(np.linalg.norm(got - expected) / np.linalg.norm(expected))
