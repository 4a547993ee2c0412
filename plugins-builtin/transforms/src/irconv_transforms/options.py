"""The options of irconv-transforms: switching fusing off, wholly or for chosen nodes."""

from __future__ import annotations

import re

from irconv import Option


def _check_regexes(value: str | None) -> str | None:
    for text in split_regexes(value):
        try:
            re.compile(text)
        except re.error as exc:
            return f"{text!r} is not a regular expression: {exc}"
    return None


def split_regexes(value: str | None) -> list[str]:
    """``"a.*,b"`` -> ``["a.*", "b"]`` (empty items dropped)."""
    return [part.strip() for part in (value or "").split(",") if part.strip()]


DISABLE_FUSING: Option[bool] = Option(
    "fusing.disable",
    bool,
    default=False,
    flag="--disable-fusing",
    keyword="disable_fusing",
    help="turn off every optimisation fusion: linear-op fusing, pad folding, grouped convolutions, "
    "activation and attention patterns, ResNet stride optimisation",
)
FINEGRAIN_FUSING: Option[str | None] = Option(
    "fusing.finegrain",
    str,
    default=None,
    flag="--finegrain-fusing",
    keyword="finegrain_fusing",
    metavar="REGEX[,REGEX]",
    validate=_check_regexes,
    help="nodes whose name (or source-framework name) fully matches one of these regular "
    "expressions are never touched by any fusion",
)
DISABLE_RESNET_OPTIMIZATION: Option[bool] = Option(
    "fusing.disable_resnet_optimization",
    bool,
    default=False,
    flag="--disable-resnet-optimization",
    keyword="disable_resnet_optimization",
    help="keep strides on 1x1 convolutions (no stride moved up to the convolution feeding them)",
)
OPTIONS = (DISABLE_FUSING, FINEGRAIN_FUSING, DISABLE_RESNET_OPTIMIZATION)
