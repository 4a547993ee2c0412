"""--dataset end to end: a tiny decoder converted with activation-aware 4-bit weights runs in
OpenVINO closer to the f32 model than data-free compression; thread counts do not change
the output; a bad dataset file is refused with one line and nothing written.

The decoder has random weights, with the RMSNorm gains of a few channels raised 20x: the
outlier activation channels trained decoders have (and data-aware compression is for).
Its tokenizer is a BPE trained on the calibration text's source (``corpus.py``), saved
beside the ONNX file, where --dataset finds it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from accuracy import openvino_logits, reference_logits, relative_error
from corpus import paragraphs, train_tokenizer
from decoders import Decoder, config, export_onnx, random_model

from conftest import convert

GROUP = 32
OUTLIERS = (3, 17, 42)


@pytest.fixture(scope="module")
def text() -> list[str]:
    return paragraphs()


@pytest.fixture(scope="module")
def outlier_llama(tmp_path_factory: pytest.TempPathFactory, text: list[str]) -> Decoder:
    import torch

    folder = tmp_path_factory.mktemp("outlier_llama")
    train_tokenizer(text[:1000], 512, folder)
    model = random_model(config("llama", vocab_size=512))
    with torch.no_grad():
        for layer in model.model.layers:
            for norm in (layer.input_layernorm, layer.post_attention_layernorm):
                norm.weight[list(OUTLIERS)] *= 20
    return export_onnx(model, folder / "llama.onnx")


@pytest.fixture(scope="module")
def calibration(outlier_llama: Decoder, text: list[str]) -> Path:
    path = outlier_llama.path.parent / "calibration.txt"
    path.write_text("\n".join(text[:32]) + "\n")
    return path


def _held_out(decoder: Decoder, text: list[str], count: int = 4, length: int = 24) -> np.ndarray:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(decoder.path.parent / "tokenizer.json"))
    rows = [ids[:length] for ids in (e.ids for e in tokenizer.encode_batch(text[-40:])) if len(ids) >= length]
    return np.asarray(rows[:count], np.int64)[:, None, :]


def test_data_aware_logits_are_closer_to_f32(
    outlier_llama: Decoder, calibration: Path, text: list[str], tmp_path: Path, record_property: Any
) -> None:
    batch = _held_out(outlier_llama, text)
    expected = reference_logits(outlier_llama, batch)
    options = {"stateful": True, "weight_format": "int4-sym", "group_size": GROUP}
    free = convert(outlier_llama, tmp_path, "free", **options)
    aware = convert(outlier_llama, tmp_path, "aware", dataset=calibration, **options)
    awq = convert(outlier_llama, tmp_path, "awq", dataset=calibration, awq=True, **options)
    errors = {xml.stem: relative_error(openvino_logits(outlier_llama, xml, batch), expected) for xml in (free, aware, awq)}
    record_property("errors", errors)
    print("relative logits error: " + ", ".join(f"{name} {error:.4f}" for name, error in errors.items()))
    assert errors["aware"] < errors["free"]
    assert errors["awq"] < errors["free"]


@pytest.mark.parametrize(
    "options",
    [
        {"weight_format": "int4-asym", "ratio": 0.8},
        {"weight_format": "int8"},
        pytest.param({"weight_format": "int4-sym", "ratio": 0.8, "dataset": "calibration", "awq": True}, marks=pytest.mark.slow),
    ],
    ids=["int4-asym-ratio", "int8", "int4-sym-dataset-awq"],
)
def test_the_same_bytes_whatever_the_thread_count(
    options: dict[str, Any], outlier_llama: Decoder, calibration: Path, tmp_path: Path
) -> None:
    if options.get("dataset"):
        options = options | {"dataset": calibration}
    written = []
    for threads in (1, 3):
        xml = convert(outlier_llama, tmp_path, f"threads{threads}", group_size=GROUP, threads=threads, **options)
        written.append((xml.read_bytes(), xml.with_suffix(".bin").read_bytes()))
    assert written[0][1] == written[1][1]
    assert written[0][0].replace(b"threads1", b"threads3") == written[1][0]


def _cli(model: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(out), "--weight-format", "int4-sym"]
    return subprocess.run([*command, *extra], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("content", "needle"),
    [(b"", "no text"), pytest.param(b"  \n\n \n", "no text", marks=pytest.mark.slow), (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not UTF-8 text")],
    ids=["empty", "blank-lines", "binary"],
)
def test_a_bad_dataset_is_refused(content: bytes, needle: str, outlier_llama: Decoder, tmp_path: Path) -> None:
    dataset = tmp_path / "samples.txt"
    dataset.write_bytes(content)
    out = tmp_path / "out.xml"
    result = _cli(outlier_llama.path, out, "--dataset", str(dataset))
    message = (result.stderr + result.stdout).strip()
    assert result.returncode != 0
    assert needle in message and str(dataset) in message, message
    assert "Traceback" not in message, message
    assert [line for line in message.splitlines() if "error" in line] == [message.splitlines()[0]], message
    assert not out.exists() and not out.with_suffix(".bin").exists()


@pytest.mark.slow
def test_a_missing_tokenizer_is_named(outlier_llama: Decoder, calibration: Path, tmp_path: Path) -> None:
    lone = tmp_path / "lone.onnx"
    lone.write_bytes(outlier_llama.path.read_bytes())
    out = tmp_path / "out.xml"
    result = _cli(lone, out, "--dataset", str(calibration))
    assert result.returncode != 0 and "--tokenizer" in result.stderr, result.stderr
    assert not out.exists()
    named = _cli(lone, out, "--dataset", str(calibration), "--tokenizer", str(outlier_llama.path.parent))
    assert named.returncode == 0, named.stderr
    assert out.exists()
