"""The options of weight compression (``--weight-format`` and the switches refining it).

Their names keep the ``llm.`` namespace they were declared with, so ``--option
llm.weight_format=...`` and every flag and keyword stay as they were.
"""

from __future__ import annotations

from typing import Any

from irconv import Option

#: ``--weight-format`` values: bits, and symmetric (no zero point) or asymmetric.
WEIGHT_FORMATS = ("int8", "int8-sym", "int4-sym", "int4-asym")


def _ratio(value: Any) -> str | None:
    return None if value is None or 0.0 <= value <= 1.0 else f"{value} is not between 0 and 1"


def _group(value: Any) -> str | None:
    return None if value is None or value == -1 or value > 0 else f"{value} is neither -1 nor a positive size"


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
    help="share of the 4-bit candidates' weights stored in 4 bits; the layers 4 bits hurt most are kept in int8 "
    "(data-free: the smallest int8 error, NNCF's criterion; with --dataset: the most activation-weighted "
    "output error added by 4 bits)",
)
ALL_LAYERS: Option[bool] = Option(
    "llm.all_layers",
    bool,
    default=False,
    flag="--all-layers",
    keyword="all_layers",
    help="with a 4-bit format, compress the embedding and the last projection in 4 bits too (they stay int8 otherwise)",
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
OPTIONS = (WEIGHT_FORMAT, GROUP_SIZE, RATIO, ALL_LAYERS, AWQ, NO_SCALE_ESTIMATION)
