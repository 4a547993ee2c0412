"""The options irconv-llm declares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irconv import MetaKey, Option

#: ``--weight-format`` values: bits, and symmetric (no zero point) or asymmetric.
WEIGHT_FORMATS = ("int8", "int8-sym", "int4-sym", "int4-asym")


def _ratio(value: Any) -> str | None:
    return None if value is None or 0.0 <= value <= 1.0 else f"{value} is not between 0 and 1"


def _group(value: Any) -> str | None:
    return None if value is None or value == -1 or value > 0 else f"{value} is neither -1 nor a positive size"


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
WEIGHT_FORMAT: Option[str | None] = Option(
    "llm.weight_format",
    str,
    flag="--weight-format",
    keyword="weight_format",
    choices=WEIGHT_FORMATS,
    help="store MatMul and embedding weights as 8- or 4-bit integers with scales (data-free): "
    "int8 is asymmetric per output channel (u8 + zero point), int4-sym/int4-asym per group",
)
GROUP_SIZE: Option[int] = Option(
    "llm.group_size",
    int,
    default=128,
    flag="--group-size",
    keyword="group_size",
    metavar="N",
    validate=_group,
    help="input channels sharing one 4-bit scale (-1: one scale per output channel)",
)
RATIO: Option[float] = Option(
    "llm.ratio",
    float,
    default=1.0,
    flag="--ratio",
    keyword="ratio",
    metavar="R",
    validate=_ratio,
    help="share of the 4-bit candidates' weights stored in 4 bits; the layers 4 bits hurt most "
    "(largest relative quantization error) are kept in int8",
)
ALL_LAYERS: Option[bool] = Option(
    "llm.all_layers",
    bool,
    default=False,
    flag="--all-layers",
    keyword="all_layers",
    help="with a 4-bit format, compress the embedding and the last projection in 4 bits too (they stay int8 otherwise)",
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
AWQ: Option[bool] = Option(
    "llm.awq",
    bool,
    default=False,
    flag="--awq",
    keyword="awq",
    help="with --dataset, also move AWQ-style per-input-channel scales from the activations into the "
    "4-bit weights (helps where a few activation channels are much larger than the rest)",
)
NO_SCALE_ESTIMATION: Option[bool] = Option(
    "llm.no_scale_estimation",
    bool,
    default=False,
    flag="--no-scale-estimation",
    keyword="no_scale_estimation",
    help="with --dataset, keep the range-based 4-bit scales instead of refitting them to the activations",
)
OPTIONS = (
    STATEFUL,
    WEIGHT_FORMAT,
    GROUP_SIZE,
    RATIO,
    ALL_LAYERS,
    DATASET,
    TOKENIZER,
    SUBSET_SIZE,
    AWQ,
    NO_SCALE_ESTIMATION,
    TASK,
)
