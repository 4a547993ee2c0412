"""--weight-format: int8/int4 weights, run by OpenVINO, against onnxruntime in f32."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import openvino
import pytest
from accuracy import openvino_logits, prompts, reference_logits, relative_error
from decoders import Decoder
from generation import greedy, onnxruntime_step, openvino_step

from conftest import convert

GROUP = 32  # the test models' matrices have 64 or 128 input channels


def _weight_types(xml: Path) -> Counter[str]:
    """Element types of the constants feeding MatMul or Gather through a decompression chain."""
    model = openvino.Core().read_model(xml)
    found: Counter[str] = Counter()
    for node in model.get_ordered_ops():
        if node.get_type_name() not in ("MatMul", "Gather"):
            continue
        source = node.input(0 if node.get_type_name() == "Gather" else 1).get_source_output().get_node()
        while source.get_type_name() in ("Reshape", "Multiply", "Subtract", "Convert"):
            source = source.input(0).get_source_output().get_node()
        if source.get_type_name() == "Constant":
            found[str(source.get_element_type().get_type_name())] += 1
    return found


@pytest.fixture(scope="module")
def compressed(llama: Decoder, tmp_path_factory: pytest.TempPathFactory) -> Any:
    directory = tmp_path_factory.mktemp("compressed")
    made: dict[tuple[str, ...], Path] = {}

    def make(weight_format: str | None, **options: Any) -> Path:
        key = (str(weight_format), *(f"{k}={v}" for k, v in sorted(options.items())))
        if key not in made:
            extra = {"weight_format": weight_format, "group_size": GROUP} if weight_format else {}
            made[key] = convert(llama, directory, "_".join(key).replace("=", "-"), stateful=True, **extra, **options)
        return made[key]

    return make


def test_int8_greedy_tokens_match_onnxruntime(llama: Decoder, compressed: Any) -> None:
    """Each of 32 steps, fed onnxruntime's greedy text so far, picks the same next token
    at least 30 times (a random model has near ties: top-2 gaps of 0.001 among logits of
    about 3, below int8's error, so a free-running text may part at its first tie)."""
    prompt = np.random.default_rng(5).integers(3, llama.vocab, (2, 6))
    expected, _ = greedy(onnxruntime_step(llama, batch=2), prompt, 32)
    got, _ = greedy(openvino_step(compressed("int8")), prompt, 32, forced=expected)
    same = (got == expected).sum(axis=1)
    assert (same >= 30).all(), f"identical tokens per sequence: {same.tolist()} of 32"


@pytest.mark.parametrize(("weight_format", "bound"), [("int8", 0.05), ("int4-sym", 0.4), ("int4-asym", 0.4)])
def test_logits_error(weight_format: str, bound: float, llama: Decoder, compressed: Any, record_property: Any) -> None:
    batch = prompts(llama)
    expected = reference_logits(llama, batch)
    error = relative_error(openvino_logits(llama, compressed(weight_format), batch), expected)
    f16_error = relative_error(openvino_logits(llama, compressed(None), batch), expected)
    record_property("relative_logits_error", error)
    print(f"{weight_format}: relative logits error {error:.4f} (f16 weights: {f16_error:.5f})")
    assert f16_error < error < bound


def test_weights_are_stored_in_the_asked_types(compressed: Any) -> None:
    assert _weight_types(compressed(None)) == Counter({"f16": 16})
    assert _weight_types(compressed("int8")) == Counter({"u8": 16})
    # 4 bits: embedding and last projection stay int8 unless --all-layers
    assert _weight_types(compressed("int4-sym")) == Counter({"i4": 14, "u8": 2})
    assert _weight_types(compressed("int4-asym")) == Counter({"u4": 14, "u8": 2})
    assert _weight_types(compressed("int4-asym", all_layers=True)) == Counter({"u4": 16})


def test_bin_size_follows_the_format(compressed: Any) -> None:
    sizes = {fmt: compressed(fmt).with_suffix(".bin").stat().st_size for fmt in (None, "int8", "int4-sym")}
    assert sizes["int4-sym"] < sizes["int8"] < sizes[None]
    assert sizes["int8"] < 0.6 * sizes[None]


def test_ratio_keeps_the_rest_in_int8(llama: Decoder, compressed: Any) -> None:
    xml = compressed("int4-sym", ratio=0.5)
    types = _weight_types(xml)
    assert types["i4"] > 0 and types["u8"] > 2
    batch = prompts(llama, count=4)
    expected = reference_logits(llama, batch)
    mixed = relative_error(openvino_logits(llama, xml, batch), expected)
    full = relative_error(openvino_logits(llama, compressed("int4-sym"), batch), expected)
    assert mixed < full


def test_grouped_scales_shape(compressed: Any) -> None:
    model = openvino.Core().read_model(compressed("int4-sym"))
    shapes = {
        tuple(n.get_output_shape(0))
        for n in model.get_ordered_ops()
        if n.get_type_name() == "Constant" and n.get_element_type().get_type_name() == "i4"
    }
    assert shapes and all(len(shape) == 3 and shape[2] == GROUP for shape in shapes)
