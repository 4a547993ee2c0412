"""The options irconv-llm declares (weight compression's are irconv-transforms':
``irconv_transforms.weight_compression.options``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irconv import MetaKey, Option


def _dataset(value: Any) -> str | None:
    from irconv_llm.dataset import dataset_problem

    return None if value is None else dataset_problem(Path(value))


def _positive(value: Any) -> str | None:
    return None if value is None or value > 0 else f"{value} is not a positive count"


STATEFUL: Option[bool] = Option(
    "llm.stateful",
    bool,
    default=False,
    flag="--stateful",
    keyword="stateful",
    help="keep a decoder's KV cache inside the model as ReadValue/Assign state, with a beam_idx input "
    "reordering it (the past key/value inputs and present outputs disappear)",
)
TASKS = ("text-generation-with-past", "text-generation", "feature-extraction")
TASK: Option[str | None] = Option(
    "llm.task",
    str,
    flag="--task",
    keyword="task",
    choices=TASKS,
    help="what a Hugging Face checkpoint folder is converted for: text-generation-with-past (causal LMs' "
    "default: the KV cache as state, for OpenVINO GenAI's LLMPipeline), text-generation (no cache), "
    "feature-extraction (encoders' default: the last hidden state, for TextEmbeddingPipeline)",
)
#: Set by a loader whose model is stateful by default (a Hugging Face causal LM): as --stateful.
MAKE_STATEFUL: MetaKey[bool] = MetaKey("llm.make_stateful", bool)
DATASET: Option[Path | None] = Option(
    "llm.dataset",
    Path,
    flag="--dataset",
    keyword="dataset",
    metavar="FILE",
    validate=_dataset,
    help="with --weight-format: a UTF-8 text file, one sample per line, run through the model to "
    "weight the compression by its activations (scales chosen and refitted for the activation-weighted "
    "error, --ratio's int8 layers chosen by it; --awq adds input-channel scaling)",
)
TOKENIZER: Option[Path | None] = Option(
    "llm.tokenizer",
    Path,
    flag="--tokenizer",
    keyword="tokenizer",
    metavar="PATH",
    help="the tokenizer.json (or a folder holding it) that turns --dataset's lines into token ids; "
    "default: the one in the model's folder",
)
SUBSET_SIZE: Option[int] = Option(
    "llm.subset_size",
    int,
    default=128,
    flag="--subset-size",
    keyword="subset_size",
    metavar="N",
    validate=_positive,
    help="--dataset lines run through the model (the first N non-blank ones)",
)
OPTIONS = (STATEFUL, DATASET, TOKENIZER, SUBSET_SIZE, TASK)
