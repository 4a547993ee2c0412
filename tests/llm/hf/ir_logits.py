"""A converted decoder folder's logits for a whole prompt, run by OpenVINO with f32 inference
(``compile_for_comparison``), and their distance from transformers'."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from irconv.runtime import compile_for_comparison


def prefill_logits(xml: Path, ids: np.ndarray) -> np.ndarray:
    """The logits ``[length, vocabulary]`` of the stateful IR ``xml`` for the token ids
    ``[1, length]`` from an empty cache (models without ``position_ids``, as Bloom, get none)."""
    compiled = compile_for_comparison(xml)
    request = compiled.create_infer_request()
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "position_ids": np.arange(ids.shape[1])[None],
             "beam_idx": np.zeros(1, np.int32)}
    names = {name for port in compiled.inputs for name in port.get_names()}
    request.infer({name: value for name, value in feeds.items() if name in names})
    return np.array(request.get_tensor("logits").data[0])


def relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    """``||got - expected|| / ||expected||``."""
    return float(np.linalg.norm(got - expected) / np.linalg.norm(expected))
