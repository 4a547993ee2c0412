"""llm.fuse_split_scale_attention: PyTorch's exported attention becomes ScaledDotProductAttention."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import openvino
import pytest
from decoders import FAMILIES
from irconv import convert_model, save_model
from irconv.runtime import compile_for_comparison
from onnx import TensorProto, helper

from conftest import convert


def _attention_model(
    path: Path, softmax_axis: int = -1, perm: tuple[int, ...] = (0, 1, 3, 2), nan_guard: bool = True
) -> Path:
    """softmax(Q*a @ Transpose(K)*b + mask) @ V as torch.onnx writes it (Q, K, V [1, 2, L, 8])."""
    shape = [1, 2, "L", 8]
    key_shape = shape if perm == (0, 1, 3, 2) else [1, "L", 2, 8]  # Kᵀ [1, 2, 8, L] either way
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.FLOAT, key_shape if name == "k" else shape)
        for name in ("q", "k", "v")
    ]
    inputs.append(helper.make_tensor_value_info("mask", TensorProto.FLOAT, [1, 1, "L", "L"]))
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, None)
    scale = helper.make_tensor("s", TensorProto.FLOAT, [], [8**-0.25])
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    nodes = [
        helper.make_node("Mul", ["q", "s"], ["qs"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=list(perm)),
        helper.make_node("Mul", ["kt", "s"], ["kts"]),
        helper.make_node("MatMul", ["qs", "kts"], ["scores"]),
        helper.make_node("Add", ["scores", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["p"], axis=softmax_axis),
    ]
    if nan_guard:
        nodes += [helper.make_node("IsNaN", ["p"], ["nan"]), helper.make_node("Where", ["nan", "zero", "p"], ["pz"])]
    nodes.append(helper.make_node("MatMul", ["pz" if nan_guard else "p", "v"], ["out"]))
    graph = helper.make_graph(nodes, "attention", inputs, [out], initializer=[scale, zero])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _types(xml: Path) -> list[str]:
    return [node.get_type_name() for node in openvino.Core().read_model(xml).get_ordered_ops()]


@pytest.mark.parametrize(("nan_guard", "perm"), [(True, (0, 1, 3, 2)), (False, (0, 1, 3, 2)), (True, (0, 2, 3, 1))],
                         ids=["nan-guard", "plain", "keys-transposed-from-heads-last"])
def test_fused_attention_matches_onnxruntime(tmp_path: Path, nan_guard: bool, perm: tuple[int, ...]) -> None:
    import onnxruntime

    model = _attention_model(tmp_path / "attention.onnx", nan_guard=nan_guard, perm=perm)
    xml = tmp_path / "attention.xml"
    save_model(convert_model(model, compress_to_fp16=False), xml)
    assert _types(xml).count("ScaledDotProductAttention") == 1
    assert "Softmax" not in _types(xml)
    rng = np.random.default_rng(0)
    feeds = {name: rng.standard_normal((1, 2, 5, 8)).astype(np.float32) for name in ("q", "k", "v")}
    if perm != (0, 1, 3, 2):
        feeds["k"] = np.ascontiguousarray(feeds["k"].transpose(0, 2, 1, 3))  # [1, L, 2, 8]
    causal = np.triu(np.full((5, 5), -np.inf, np.float32), 1)[None, None]
    feeds["mask"] = causal
    expected = onnxruntime.InferenceSession(str(model)).run(None, feeds)[0]
    got = compile_for_comparison(xml)(feeds)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "change", [{"softmax_axis": 2}], ids=["softmax-not-last-axis"]
)
def test_other_graphs_are_left_alone(tmp_path: Path, change: dict[str, Any]) -> None:
    model = _attention_model(tmp_path / "attention.onnx", **change)
    xml = tmp_path / "attention.xml"
    save_model(convert_model(model, compress_to_fp16=False), xml)
    assert "ScaledDotProductAttention" not in _types(xml)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_decoder_layer_gets_one_attention_op(family: str, decoder_factory: Any, tmp_path: Path) -> None:
    decoder = decoder_factory(family)
    assert (
        _types(convert(decoder, tmp_path, "fused", stateful=True)).count("ScaledDotProductAttention") == decoder.layers
    )
    unfused = convert(
        decoder, tmp_path, "unfused", stateful=True, disabled_transforms=["llm.fuse_split_scale_attention"]
    )
    assert "ScaledDotProductAttention" not in _types(unfused)
