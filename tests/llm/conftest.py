"""Fixtures of the LLM tests: small random decoders exported once per session."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # decoders.py, generation.py
sys.path.insert(0, str(Path(__file__).parent / "hf"))  # hf_checkpoints.py

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")

from decoders import Decoder, exported  # noqa: E402


@pytest.fixture(scope="session")
def decoder_factory(tmp_path_factory: pytest.TempPathFactory) -> Any:
    made: dict[str, Decoder] = {}

    def make(family: str) -> Decoder:
        if family not in made:
            made[family] = exported(family, tmp_path_factory.mktemp(family))
        return made[family]

    return make


@pytest.fixture(scope="session")
def llama(decoder_factory: Any) -> Decoder:
    return decoder_factory("llama")


def convert(decoder: Decoder, directory: Path, name: str, **options: Any) -> Path:
    """``decoder`` converted by irconv into ``directory/name.xml``."""
    from irconv import convert_model, save_model

    xml = directory / f"{name}.xml"
    save_model(convert_model(decoder.path, **options), xml)
    return xml
