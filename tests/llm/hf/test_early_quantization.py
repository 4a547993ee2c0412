"""Weight matrices quantized in a worker process while ``torch.export`` traces the model
(``irconv_llm.huggingface.early_quantization``, ``irconv_transforms.weight_compression.early``):
the IR is the same bytes as when every quantization is computed by ``compress.weights``, the
worker's results are the ones used, and a worker that fails changes nothing but the time."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hf_checkpoints import checkpoint

#: Llama of hidden 256 and MLP 4096 in bf16: gate/up/down are 2 MiB each (read as f32 block
#: by block, as large checkpoints are), the attention projections small enough to be read whole.
SIZES = dict(hidden_size=256, intermediate_size=4096, num_attention_heads=4, num_key_value_heads=2,
             initializer_range=0.05)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = tmp_path_factory.mktemp("early-llama")
    checkpoint("llama", made, dtype="bfloat16", **SIZES)
    return made


def _convert(folder: Path, out: Path, weight_format: str) -> bytes:
    from irconv import convert_model, save_model

    save_model(convert_model(str(folder), weight_format=weight_format), f"{out}/")
    return (out / "openvino_model.bin").read_bytes() + (out / "openvino_model.xml").read_bytes()


def _started(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Records each ``EarlyQuantizations`` a loader starts (its ``taken``: how many of the
    worker's quantizations were used)."""
    from irconv_transforms.weight_compression.early import EarlyQuantizations

    made: list[Any] = []
    start = EarlyQuantizations.start.__func__  # type: ignore[attr-defined]

    def recorded(cls: type, *args: Any) -> Any:
        made.append(start(cls, *args))
        return made[-1]

    monkeypatch.setattr(EarlyQuantizations, "start", classmethod(recorded))
    return made


def _without_early(monkeypatch: pytest.MonkeyPatch) -> None:
    import irconv_llm.huggingface.early_quantization as early_quantization

    monkeypatch.setattr(early_quantization, "start_early_quantization", lambda *args: None)


@pytest.mark.parametrize("weight_format", ["int4-sym", "int8"])
def test_quantized_early_gives_the_same_ir(
    weight_format: str, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patched:
        made = _started(patched)
        early = _convert(folder, tmp_path / "early", weight_format)
    # the 2 layers' gate, up and down (the smaller matrices are read whole, as copies); the
    # worker may be left some of them when the trace ends first
    assert len(made) == 1 and made[0].started == 6 and made[0].taken >= 1, made
    with monkeypatch.context() as patched:
        _without_early(patched)
        assert _convert(folder, tmp_path / "late", weight_format) == early


def test_a_worker_that_fails_changes_nothing(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patched:
        patched.setattr(sys, "executable", "/bin/false")  # the worker process exits at once
        made = _started(patched)
        failed = _convert(folder, tmp_path / "failed", "int4-sym")
    assert len(made) == 1 and made[0].started == 6 and made[0].taken == 0, made
    with monkeypatch.context() as patched:
        _without_early(patched)
        assert _convert(folder, tmp_path / "late", "int4-sym") == failed
