"""--stateful on a torch.export program: a hand-written explicit-cache decoder, through irconv-torch.

The program's outputs carry node names (``linear_14``, ``cat_3``), so each past input is paired
with the output that concatenates it. The reference is the module run eagerly by torch with
its cache fed back; the stateful IR runs in OpenVINO (f32) with the cache in its state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import openvino
import pytest
from generation import Step, beam_search, greedy
from irconv import convert_model, save_model
from irconv.runtime import compile_for_comparison

pytest.importorskip("irconv_torch")
torch_decoder = pytest.importorskip("torch_decoder")

TOKENS = 32


@pytest.fixture(scope="module")
def model() -> Any:
    return torch_decoder.decoder()


@pytest.fixture(scope="module")
def stateful_xml(model: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    xml = tmp_path_factory.mktemp("torch_export") / "stateful.xml"
    save_model(convert_model(torch_decoder.export(model), stateful=True, compress_to_fp16=False), xml)
    return xml


def _torch_step(model: Any, batch: int) -> Step:
    import torch

    cache = torch_decoder.empty_cache(batch)

    def step(ids: np.ndarray, mask: np.ndarray, positions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        nonlocal cache
        index = torch.from_numpy(rows)
        with torch.no_grad():
            logits, *cache = model(
                torch.from_numpy(ids),
                torch.from_numpy(mask),
                torch.from_numpy(positions),
                tuple(c[index] for c in cache),
            )
        return logits[:, -1].numpy()

    return step


def _openvino_step(xml: Path) -> Step:
    compiled = compile_for_comparison(xml)
    request = compiled.create_infer_request()

    def step(ids: np.ndarray, mask: np.ndarray, positions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        request.infer(
            {"input_ids": ids, "attention_mask": mask, "position_ids": positions, "beam_idx": rows.astype(np.int32)}
        )
        return np.array(request.get_output_tensor(0).data[:, -1])

    return step


def test_the_cache_becomes_state(stateful_xml: Path) -> None:
    model = openvino.Core().read_model(stateful_xml)
    assert [port.get_any_name() for port in model.inputs] == ["input_ids", "attention_mask", "position_ids", "beam_idx"]
    assert len(model.outputs) == 1
    assert sorted(variable.info.variable_id for variable in model.get_variables()) == [
        f"past_key_values_{i}" for i in range(2 * torch_decoder.LAYERS)
    ]


def test_greedy_tokens_match_torch(model: Any, stateful_xml: Path) -> None:
    prompt = np.random.default_rng(1).integers(3, torch_decoder.VOCAB, (2, 6))
    expected, expected_logits = greedy(_torch_step(model, 2), prompt, TOKENS)
    got, got_logits = greedy(_openvino_step(stateful_xml), prompt, TOKENS)
    assert len(set(expected[0].tolist())) > 3  # the text moves: the cache is read
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(got_logits[-1], expected_logits[-1], rtol=1e-4, atol=1e-4)


def test_beam_search_matches_torch(model: Any, stateful_xml: Path) -> None:
    prompt = np.random.default_rng(2).integers(3, torch_decoder.VOCAB, (1, 5))
    expected = beam_search(_torch_step(model, 2), prompt, 12)
    got = beam_search(_openvino_step(stateful_xml), prompt, 12)
    assert got == expected
