"""Mixture-of-experts folders (Mixtral, Qwen2-MoE): the experts' stacked weights are
multiplied as they are stored, never gathered per token (transformers' ``batched_mm`` made a
copy of the chosen experts' matrices for every token and choice at run time: 17 GiB for a
128-token prompt of a 2-layer, 8-expert model of hidden 1024), and the logits of a prompt
longer than the traced one are transformers'."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hf_checkpoints import VOCAB, checkpoint
from ir_logits import prefill_logits, relative_error

PROMPT_LENGTH = 40


def _gathered_stacks(xml: Path) -> list[str]:
    """Ops that gather from a constant of rank 3 (the experts' stacked matrices)."""
    import openvino

    model = openvino.Core().read_model(str(xml))
    found = []
    for node in model.get_ops():
        if node.get_type_name() != "Gather":
            continue
        source = node.input(0).get_source_output().get_node()
        while source.get_type_name() == "Convert":
            source = source.input(0).get_source_output().get_node()
        if source.get_type_name() == "Constant" and len(source.get_output_shape(0)) == 3:
            found.append(node.get_friendly_name())
    return found


@pytest.mark.parametrize("family", ["mixtral", "qwen2_moe"])
def test_experts_are_not_gathered(family: str, tmp_path: Path) -> None:
    import torch
    from irconv import convert_model, save_model

    folder, out = tmp_path / "ck", tmp_path / "ov"
    model = checkpoint(family, folder)
    save_model(convert_model(str(folder), compress_to_fp16=False), f"{out}/")
    assert _gathered_stacks(out / "openvino_model.xml") == []

    ids = np.random.default_rng(0).integers(3, VOCAB, (1, PROMPT_LENGTH))
    with torch.no_grad():
        expected = model(torch.from_numpy(ids)).logits.numpy()[0]
    np.testing.assert_allclose(prefill_logits(out / "openvino_model.xml", ids), expected, rtol=1e-4, atol=1e-4)


#: Largest relative error ||IR - transformers|| / ||transformers|| of the logits per format.
TOLERANCE = {"int8": 0.1, "int4-sym": 0.4}


@pytest.mark.parametrize("weight_format", ["int8", "int4-sym"])
@pytest.mark.parametrize("family", ["mixtral", "qwen2_moe"])
def test_experts_are_compressed(family: str, weight_format: str, tmp_path: Path) -> None:
    """The stacked expert matrices are compressed like any MatMul's weights (a scale per
    output channel of each expert, or per group of its inputs)."""
    import openvino
    import torch
    from irconv import convert_model, save_model

    folder, out = tmp_path / "ck", tmp_path / "ov"
    model = checkpoint(family, folder)
    save_model(convert_model(str(folder), compress_to_fp16=False, weight_format=weight_format, group_size=32), f"{out}/")
    ir = openvino.Core().read_model(str(out / "openvino_model.xml"))
    float_stacks = [node.get_friendly_name() for node in ir.get_ops() if node.get_type_name() == "Constant"
                    and node.get_output_element_type(0).is_real() and len(node.get_output_shape(0)) == 3
                    and min(node.get_output_shape(0)) > 1]  # not a scale: [rows, groups, 1]
    assert float_stacks == []

    ids = np.random.default_rng(0).integers(3, VOCAB, (1, PROMPT_LENGTH))
    with torch.no_grad():
        expected = model(torch.from_numpy(ids)).logits.numpy()[0]
    error = relative_error(prefill_logits(out / "openvino_model.xml", ids), expected)
    assert error < TOLERANCE[weight_format], f"{weight_format}: relative logits error {error:.3f}"
