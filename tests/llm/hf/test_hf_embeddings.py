"""An encoder folder (BERT-style, ``feature-extraction``) converted by irconv and run by
OpenVINO GenAI's TextEmbeddingPipeline, against transformers' last hidden state pooled the
same way (f32 hints)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("openvino_genai")
pytest.importorskip("openvino_tokenizers")

from hf_checkpoints import tokenizer

TEXTS = ["The quick brown fox", "Hello world! How are you today?", "Numbers like 12345"]


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, Any]:
    import torch
    import transformers

    folder = tmp_path_factory.mktemp("bert")
    config = transformers.BertConfig(vocab_size=320, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=128, max_position_embeddings=128, pad_token_id=0)
    torch.manual_seed(0)
    model = transformers.BertModel(config).eval()
    model.save_pretrained(str(folder))
    return folder, model, tokenizer(folder)


@pytest.fixture(scope="module")
def converted_encoder(encoder: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The encoder's folder converted once: each pooling only reads it."""
    from irconv import convert_model, save_model

    out = tmp_path_factory.mktemp("bert-ov")
    save_model(convert_model(str(encoder[0]), compress_to_fp16=False), f"{out}/")
    return out


@pytest.mark.parametrize("pooling", ["MEAN", "CLS"])
def test_text_embedding_pipeline_matches_transformers(encoder: Any, converted_encoder: Path, pooling: str) -> None:
    import openvino_genai
    import torch

    _, model, tok = encoder
    out = converted_encoder
    config = openvino_genai.TextEmbeddingPipeline.Config()
    config.pooling_type = getattr(openvino_genai.TextEmbeddingPipeline.PoolingType, pooling)
    config.normalize = False
    pipe = openvino_genai.TextEmbeddingPipeline(str(out), "CPU", config, INFERENCE_PRECISION_HINT="f32")
    got = np.array(pipe.embed_documents(TEXTS))
    encoded = tok(TEXTS, return_tensors="pt", padding=True)
    with torch.no_grad():
        hidden = model(**encoded).last_hidden_state
    if pooling == "CLS":
        expected = hidden[:, 0].numpy()
    else:
        mask = encoded.attention_mask[..., None].float()
        expected = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-4, rtol=0)
