"""A checkpoint whose language-model head is its embedding table (``tie_word_embeddings``):
the IR stores that matrix once, read by both the embedding's Gather and the head's MatMul,
in every weight format, and its logits are transformers'.

The final norm's scale is varied, as training leaves it: folding it into the head's weights
(``fuse.linear_forward``) would give the head a scaled copy of the table, and compressing
both readers would quantize and write the table twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hf_checkpoints import VOCAB, checkpoint
from ir_logits import prefill_logits, relative_error

#: Largest relative error ||IR - transformers|| / ||transformers|| of the logits per format
#: (f32 weights: rounding only; int8 keeps the tied table per row, int4 the layers in 4 bits).
TOLERANCE = {None: 1e-4, "int8": 0.1, "int4-sym": 0.4}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    folder = tmp_path_factory.mktemp("tied-llama")
    return folder, checkpoint("llama", folder, tie_word_embeddings=True)


def _vocabulary_matrices(xml: Path) -> list[str]:
    """Constants holding a whole ``[VOCAB, hidden]`` matrix (stored or quantized)."""
    import openvino

    model = openvino.Core().read_model(str(xml))
    return [node.get_friendly_name() for node in model.get_ops()
            if node.get_type_name() == "Constant" and list(node.get_output_shape(0))[:1] == [VOCAB]
            and node.get_output_shape(0)[-1] > 1]


@pytest.mark.parametrize("weight_format", [None, "int8", "int4-sym"])
def test_tied_table_is_stored_once(weight_format: str | None, made: Any, tmp_path: Path) -> None:
    import torch
    from irconv import convert_model, save_model

    folder, model = made
    assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    options: dict[str, Any] = {"compress_to_fp16": False}
    if weight_format is not None:
        options.update(weight_format=weight_format, group_size=32)
    out = tmp_path / "ov"
    save_model(convert_model(str(folder), **options), f"{out}/")
    assert len(_vocabulary_matrices(out / "openvino_model.xml")) == 1

    ids = np.random.default_rng(0).integers(3, VOCAB, (1, 12))
    with torch.no_grad():
        expected = model(torch.from_numpy(ids)).logits.numpy()[0]
    error = relative_error(prefill_logits(out / "openvino_model.xml", ids), expected)
    assert error < TOLERANCE[weight_format], f"{weight_format}: relative logits error {error:.2e}"
