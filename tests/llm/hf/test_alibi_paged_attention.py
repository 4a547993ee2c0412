"""An ALiBi model's folder, rewritten by OpenVINO's SDPA-to-PagedAttention transformation (what
GenAI's default backend runs): every PagedAttention node takes transformers' per-head slopes,
scaled as the model scales its bias. Without them PagedAttention adds no position bias."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hf_checkpoints import checkpoint

FALCON_RW = dict(new_decoder_architecture=False, multi_query=False, alibi=True)


@pytest.mark.parametrize("heads", [4, 16])  # 16: slopes 2^(-k/2), not powers of two
def test_paged_attention_takes_falcon_alibi_slopes(heads: int, tmp_path: Path) -> None:
    import numpy as np
    import openvino as ov
    import torch
    from irconv import convert_model, save_model
    from irconv.runtime import compile_for_comparison
    from openvino._offline_transformations import paged_attention_transformation
    from transformers.models.falcon.modeling_falcon import build_alibi_tensor

    folder = tmp_path / "ck"
    checkpoint("falcon", folder, num_attention_heads=heads, num_kv_heads=heads, **FALCON_RW)
    save_model(convert_model(str(folder), compress_to_fp16=False), f"{tmp_path / 'ov'}/")
    model = ov.Core().read_model(tmp_path / "ov" / "openvino_model.xml")
    paged_attention_transformation(model)
    # the bias at position 1 is the slope (rounded to bf16 as transformers' Falcon does)
    slopes = build_alibi_tensor(torch.ones(1, 2), heads, torch.float32)[:, 0, 1].numpy()
    expected = slopes / math.sqrt(64 // heads)
    attention = [node for node in model.get_ordered_ops() if node.get_type_name() == "PagedAttentionExtension"]
    assert len(attention) == 2
    for node in attention:
        source = node.input(11).get_source_output()  # alibi_slopes
        compiled = compile_for_comparison(ov.Model([source], []))
        found = compiled({})[0]
        np.testing.assert_allclose(found, expected, rtol=1e-6)
