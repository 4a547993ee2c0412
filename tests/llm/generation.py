"""Greedy and beam-search decoding loops over the two runtimes under comparison.

onnxruntime runs the exported model statelessly, feeding the cache back as inputs;
OpenVINO runs the stateful IR, whose cache stays inside the infer request. Both loops are
the same algorithm, so any difference in tokens comes from the models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from decoders import Decoder
from irconv.runtime import compile_for_comparison

#: One decoding step: (input_ids, attention_mask, position_ids, rows each sequence continues
#: from) -> logits of the last position, [batch, vocab].
Step = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def onnxruntime_step(decoder: Decoder, batch: int) -> Step:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(decoder.path), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    cache = decoder.empty_cache(batch)

    def step(ids: np.ndarray, mask: np.ndarray, positions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": ids, "attention_mask": mask, "position_ids": positions}
        feeds.update({name: value[rows] for name, value in cache.items()})
        outputs = dict(zip(names, session.run(None, feeds), strict=True))
        for name in cache:
            cache[name] = outputs[name.replace("past_key_values", "present")]
        return outputs["logits"][:, -1]

    return step


def openvino_step(xml: Any) -> Step:
    compiled = compile_for_comparison(xml)  # f32 compute and KV cache, whatever the CPU's defaults
    request = compiled.create_infer_request()
    request.reset_state()

    def step(ids: np.ndarray, mask: np.ndarray, positions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        request.infer(
            {"input_ids": ids, "attention_mask": mask, "position_ids": positions, "beam_idx": rows.astype(np.int32)}
        )
        return np.array(request.get_tensor("logits").data[:, -1])

    return step


def greedy(
    step: Step, prompt: np.ndarray, tokens: int, forced: np.ndarray | None = None
) -> tuple[np.ndarray, list[np.ndarray]]:
    """``tokens`` greedy tokens after ``prompt`` [batch, length]; returns them [batch, tokens]
    and the logits of each step. With ``forced`` [batch, tokens], each step is fed the
    forced token instead of its own choice (the choices are still returned): one near tie
    decided the other way then costs one token, not every token after it."""
    batch, length = prompt.shape
    ids, mask = prompt.astype(np.int64), np.ones(prompt.shape, np.int64)
    positions = np.broadcast_to(np.arange(length), prompt.shape).astype(np.int64)
    rows = np.arange(batch)
    chosen, logits = [], []
    for _ in range(tokens):
        last = step(ids, mask, positions, rows)
        logits.append(last)
        choice = last.argmax(-1).astype(np.int64)
        chosen.append(choice)
        ids = (choice if forced is None else forced[:, len(chosen) - 1])[:, None]
        positions = np.full((batch, 1), mask.shape[1], np.int64)
        mask = np.ones((batch, mask.shape[1] + 1), np.int64)
    return np.stack(chosen, 1), logits


def beam_search(step: Step, prompt: np.ndarray, tokens: int, width: int = 2) -> tuple[list[list[int]], list[list[int]]]:
    """Beam search over ``width`` beams from a one-row ``prompt``; returns, per step, the
    beams' tokens and the rows they continue from (the ``beam_idx`` fed to the next step)."""
    ids = np.repeat(prompt.astype(np.int64), width, 0)
    mask = np.ones(ids.shape, np.int64)
    positions = np.broadcast_to(np.arange(ids.shape[1]), ids.shape).astype(np.int64)
    scores = np.array([0.0] + [-np.inf] * (width - 1))  # the copies of the prompt are one beam
    rows = np.arange(width)
    all_tokens, all_rows = [], []
    for _ in range(tokens):
        last = step(ids, mask, positions, rows).astype(np.float64)
        logprobs = (
            last
            - np.log(np.exp(last - last.max(-1, keepdims=True)).sum(-1, keepdims=True))
            - last.max(-1, keepdims=True)
        )
        total = (scores[:, None] + logprobs).reshape(-1)
        best = np.argsort(-total, kind="stable")[:width]
        rows, chosen = best // last.shape[1], best % last.shape[1]
        scores = total[best]
        all_tokens.append(chosen.tolist())
        all_rows.append(rows.tolist())
        ids = chosen[:, None].astype(np.int64)
        positions = np.full((width, 1), mask.shape[1], np.int64)
        mask = np.ones((width, mask.shape[1] + 1), np.int64)
    return all_tokens, all_rows
