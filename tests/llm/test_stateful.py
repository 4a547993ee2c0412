"""--stateful: the KV cache as ReadValue/Assign state, checked by generating text.

The reference is onnxruntime running the exported model with its cache fed back as
inputs; the stateful IR runs in OpenVINO with the cache inside the infer request. All in
f32 (no fp16 weights, f32 compute and KV cache on the CPU plugin): the tokens must be
identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import openvino
import pytest
from decoders import FAMILIES, Decoder
from generation import beam_search, greedy, onnxruntime_step, openvino_step
from irconv import UserError

from conftest import convert
from irconv.runtime import compile_for_comparison

TOKENS = 32


def _prompt(decoder: Decoder, batch: int, length: int = 6, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(3, decoder.vocab, (batch, length))


@pytest.mark.parametrize("family", FAMILIES)
def test_greedy_tokens_match_onnxruntime(family: str, decoder_factory: Any, tmp_path: Path) -> None:
    decoder = decoder_factory(family)
    xml = convert(decoder, tmp_path, "stateful", stateful=True, compress_to_fp16=False)
    prompt = _prompt(decoder, batch=2)
    expected, expected_logits = greedy(onnxruntime_step(decoder, batch=2), prompt, TOKENS)
    got, got_logits = greedy(openvino_step(xml), prompt, TOKENS)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(got_logits[-1], expected_logits[-1], rtol=1e-3, atol=1e-3)


def test_interface_is_stateful(llama: Decoder, tmp_path: Path) -> None:
    xml = convert(llama, tmp_path, "stateful", stateful=True)
    model = openvino.Core().read_model(xml)
    assert sorted(p.get_any_name() for p in model.inputs) == ["attention_mask", "beam_idx", "input_ids", "position_ids"]
    assert [r.get_any_name() for r in model.outputs] == ["logits"]
    assert sorted(v.info.variable_id for v in model.get_variables()) == sorted(llama.cache_inputs())


def test_reset_state_starts_a_new_sequence(llama: Decoder, tmp_path: Path) -> None:
    xml = convert(llama, tmp_path, "stateful", stateful=True, compress_to_fp16=False)
    compiled = compile_for_comparison(xml)
    request = compiled.create_infer_request()
    prompt = _prompt(llama, batch=1)
    feeds = {
        "input_ids": prompt,
        "attention_mask": np.ones(prompt.shape, np.int64),
        "position_ids": np.arange(prompt.shape[1])[None],
        "beam_idx": np.zeros(1, np.int32),
    }
    first = np.array(request.infer(feeds)["logits"])
    request.infer(feeds | {"attention_mask": np.ones((1, 2 * prompt.shape[1]), np.int64)})  # the cache grows
    request.reset_state()
    again = np.array(request.infer(feeds)["logits"])
    np.testing.assert_array_equal(again, first)


def test_beam_search_matches_onnxruntime(llama: Decoder, tmp_path: Path) -> None:
    xml = convert(llama, tmp_path, "stateful", stateful=True, compress_to_fp16=False)
    prompt = _prompt(llama, batch=1)
    expected = beam_search(onnxruntime_step(llama, batch=2), prompt, TOKENS, width=2)
    got = beam_search(openvino_step(xml), prompt, TOKENS, width=2)
    assert got == expected
    assert any(rows != sorted(rows) or len(set(rows)) < len(rows) for rows in expected[1]), "beams never reordered"


def test_model_without_cache_is_one_clear_error(tmp_path: Path) -> None:
    import onnx
    from irconv import convert_model

    x = onnx.helper.make_tensor_value_info("input_ids", onnx.TensorProto.FLOAT, ["batch", 4])
    y = onnx.helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, ["batch", 4])
    graph = onnx.helper.make_graph([onnx.helper.make_node("Relu", ["input_ids"], ["logits"])], "g", [x], [y])
    path = tmp_path / "plain.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]), path)
    with pytest.raises(UserError, match=r"no past key/value inputs.*input_ids"):
        convert_model(path, stateful=True)


def test_unrecognised_cache_layout_is_one_clear_error(tmp_path: Path) -> None:
    import onnx
    from irconv import convert_model

    helper, f32 = onnx.helper, onnx.TensorProto.FLOAT
    ids = helper.make_tensor_value_info("input_ids", onnx.TensorProto.INT64, ["batch", "sequence"])
    past = helper.make_tensor_value_info("past_key_values.0.key", f32, ["batch", "heads", "past", 16])  # 3 dynamic dims
    present = helper.make_tensor_value_info("present.0.key", f32, None)
    graph = helper.make_graph(
        [helper.make_node("Relu", ["past_key_values.0.key"], ["present.0.key"])], "g", [ids, past], [present]
    )
    path = tmp_path / "odd_cache.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    with pytest.raises(UserError, match=r"cannot tell the layout of KV cache input 'past_key_values.0.key'"):
        convert_model(path, stateful=True)
