"""Dynamic NTK rotary frequencies traced as graph operations: the IR of transformers' rotary
module gives transformers' cos/sin at position counts on both sides of max_position_embeddings
(before, the trace kept the branch of its example length at every length)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import irconv
import numpy as np
import pytest
from irconv.testing.runtime import compile_ir, emit_ir

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

MAX_POSITIONS = 32


class CosSin(torch.nn.Module):
    """The rotary module with a float input of fixed shape (it reads only its dtype)."""

    def __init__(self, rotary: Any) -> None:
        super().__init__()
        self.rotary = rotary

    def forward(self, position_ids: Any) -> Any:
        return self.rotary(torch.zeros(1), position_ids)


def _rotary() -> Any:
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = LlamaConfig(hidden_size=64, num_attention_heads=4, max_position_embeddings=MAX_POSITIONS,
                         rope_scaling={"rope_type": "dynamic", "factor": 2.0})
    return LlamaRotaryEmbedding(config).eval()


def test_dynamic_rope_ir_matches_transformers_across_max_positions(tmp_path: Path) -> None:
    from irconv_llm.huggingface.dynamic_rope import traceable_dynamic_rope

    rotary = _rotary()
    with traceable_dynamic_rope(rotary), torch.no_grad():
        graph = irconv.convert_model(CosSin(rotary), example_input=(torch.arange(5)[None],),
                                     dynamic_shapes=({1: torch.export.Dim("S", min=2, max=256)},))
    assert "forward" not in vars(rotary)  # transformers' forward is back after the trace
    compiled = compile_ir(emit_ir(graph, tmp_path / "model.xml"))
    for length in (8, MAX_POSITIONS, MAX_POSITIONS + 1, 3 * MAX_POSITIONS):
        positions = torch.arange(length)[None]
        with torch.no_grad():
            want = _rotary()(torch.zeros(1), positions)  # a fresh module: transformers' update is stateful
        got = compiled([positions.numpy()])
        for index, expected in enumerate(want):
            np.testing.assert_allclose(got[compiled.output(index)], expected.numpy(), rtol=1e-5, atol=1e-5,
                                       err_msg=f"length {length}, output {index}")
