"""Bad Hugging Face folders: one line on stderr, exit code 1, nothing written; a tokenizer
openvino-tokenizers cannot convert leaves the model written, with a note."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openvino_genai")
pytest.importorskip("openvino_tokenizers")

from hf_checkpoints import checkpoint


@pytest.fixture(scope="module")
def sharded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A llama checkpoint saved in several shards, with their index."""
    import torch
    import transformers

    from hf_checkpoints import FAMILIES, _COMMON, tokenizer

    folder = tmp_path_factory.mktemp("sharded")
    class_name, keywords = FAMILIES["llama"]
    config = getattr(transformers, class_name)(**{**_COMMON, **keywords})
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config)
    model.save_pretrained(str(folder), max_shard_size="100KB")
    tokenizer(folder)
    assert (folder / "model.safetensors.index.json").is_file()
    return folder


def _convert(folder: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "irconv", "convert", str(folder), "-o", f"{out}/", *extra],
                          capture_output=True, text=True)


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def _refused(run: subprocess.CompletedProcess[str], out: Path, *words: str) -> None:
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert run.returncode == 1, run.stderr
    assert len(lines) == 1, run.stderr
    assert all(word in lines[0] for word in words), lines[0]
    assert not out.exists() or not any(out.iterdir())


def test_missing_shard(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path / "ck")
    shard = sorted(folder.glob("model-*.safetensors"))[1]
    shard.unlink()
    _refused(_convert(folder, tmp_path / "out"), tmp_path / "out", shard.name, "missing")


def test_sharded_checkpoint_converts(sharded: Path, tmp_path: Path) -> None:
    run = _convert(sharded, tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "openvino_model.xml").is_file()


def test_unknown_architecture(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path / "ck")
    config = json.loads((folder / "config.json").read_text())
    config["architectures"] = ["MysteryForCausalLM"]
    (folder / "config.json").write_text(json.dumps(config))
    _refused(_convert(folder, tmp_path / "out"), tmp_path / "out", "MysteryForCausalLM")


def test_task_not_for_this_model(sharded: Path, tmp_path: Path) -> None:
    _refused(_convert(sharded, tmp_path / "out", "--task", "feature-extraction"), tmp_path / "out",
             "feature-extraction", "LlamaForCausalLM")


def test_unconvertible_tokenizer_leaves_the_model_and_a_note(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path / "ck")
    (folder / "tokenizer.json").write_text("{ not json")
    run = _convert(folder, tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert "tokenizer" in run.stdout and "was not converted" in run.stdout
    names = {p.name for p in (tmp_path / "out").iterdir()}
    assert "openvino_model.xml" in names and "openvino_tokenizer.xml" not in names
