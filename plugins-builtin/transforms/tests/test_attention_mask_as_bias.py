"""fuse.attention_mask_as_bias: a boolean SDPA mask becomes the bias it stands for; the
attention is compared in OpenVINO with the graph as it was (f32 pinned by ``run_ir``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
from irconv.testing import GraphBuilder, run_transform
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import ReLU, ScaledDotProductAttention
from irconv_transforms.attention_mask_as_bias import AttentionMaskAsBias

RNG = np.random.default_rng(3)


def _two_attentions(mask_type: str = "boolean"):
    """Two attentions over one [b, 1, q, k] mask (a decoder's layers share theirs)."""
    b = GraphBuilder()
    q, k, v = (b.parameter(name, (None, 2, None, 8)) for name in "qkv")
    mask = b.parameter("mask", (None, 1, None, None), mask_type)
    first = b.op(ScaledDotProductAttention(), q, k, v, mask)
    b.result(b.op(ScaledDotProductAttention(), b.op(ReLU(), first), k, v, mask), "out")
    return b.graph


def test_a_boolean_mask_becomes_one_bias_for_every_attention_reading_it(tmp_path: Path) -> None:
    graph = _two_attentions()
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, AttentionMaskAsBias()) is True
    assert Counter(node.type for node in graph.nodes())["Select"] == 1
    after = emit_ir(graph, tmp_path / "after.xml")
    queries, keys = 3, 5
    mask = RNG.random((2, 1, queries, keys)) > 0.4
    mask[:, :, :, 0] = True  # every query attends something: no all -inf row
    mask[1, 0, 2, :] = False  # ... but one, where both forms give NaN
    inputs = {"q": RNG.standard_normal((2, 2, queries, 8)).astype(np.float32),
              "k": RNG.standard_normal((2, 2, keys, 8)).astype(np.float32),
              "v": RNG.standard_normal((2, 2, keys, 8)).astype(np.float32), "mask": mask}
    expected, got = run_ir(before, inputs)["out"], run_ir(after, inputs)["out"]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True)
    assert np.isnan(expected[1, :, 2]).all() and not np.isnan(expected[0]).any()


def test_a_float_mask_is_left_alone() -> None:
    assert run_transform(_two_attentions("f32"), AttentionMaskAsBias()) is False
