"""The options irconv-prep declares, and the graph facts it records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from irconv import Option

from irconv_prep.specs import parse_frozen, parse_layouts, parse_per_input


def _checked_by(parse: Callable[[Any], object]) -> Callable[[Any], str | None]:
    def validate(value: Any) -> str | None:
        if value is None:
            return None
        try:
            parse(value)
        except ValueError as exc:
            return str(exc)
        return None

    return validate


def _divisors(value: Any) -> str | None:
    """Scales divide: a 0 is wrong whatever the model, so it is refused with the value's syntax."""
    problem = _checked_by(parse_per_input)(value)
    if problem or value is None:
        return problem
    zero = next((name for name, values in parse_per_input(value).items() if 0 in values), None)
    where = f"input {zero!r}" if zero else "the model's input"
    return None if zero is None else f"a scale of 0 for {where}: scales divide the input"


def _positive(value: Any) -> str | None:
    return None if value is None or value > 0 else f"{value} is not a positive number"


MEAN_VALUES: Option[Any] = Option(
    "prep.mean_values",
    str,
    flag="--mean-values",
    keyword="mean_values",
    metavar="NAME[V,...]",
    validate=_checked_by(parse_per_input),
    help="subtract per-channel means from an input, e.g. data[123.7,116.3,103.5] (model's channel order)",
)
SCALE_VALUES: Option[Any] = Option(
    "prep.scale_values",
    str,
    flag="--scale-values",
    keyword="scale_values",
    metavar="NAME[V,...]",
    validate=_divisors,
    help="divide an input by per-channel values (after the means), e.g. data[58.4,57.1,57.4]",
)
SCALE: Option[float | None] = Option(
    "prep.scale",
    float,
    flag="--scale",
    keyword="scale",
    metavar="S",
    validate=_positive,
    help="divide every input by S (after the means); --scale-values wins for the inputs it names",
)
REVERSE_INPUT_CHANNELS: Option[bool] = Option(
    "prep.reverse_input_channels",
    bool,
    default=False,
    flag="--reverse-input-channels",
    keyword="reverse_input_channels",
    help="flip the channel order of 3-channel inputs (RGB <-> BGR), before means and scales",
)
LAYOUT: Option[Any] = Option(
    "prep.layout",
    str,
    flag="--layout",
    keyword="layout",
    metavar="NAME(LAYOUT)",
    validate=_checked_by(parse_layouts),
    help="an input's layout, e.g. data(nchw); data(nhwc->nchw) makes the IR input NCHW with a Transpose",
)
SOURCE_LAYOUT: Option[Any] = Option(
    "prep.source_layout",
    str,
    flag="--source-layout",
    keyword="source_layout",
    metavar="NAME(LAYOUT)",
    validate=_checked_by(lambda v: parse_layouts(v, allow_arrow=False)),
    help="an input's layout in the model, e.g. data(nhwc)",
)
TARGET_LAYOUT: Option[Any] = Option(
    "prep.target_layout",
    str,
    flag="--target-layout",
    keyword="target_layout",
    metavar="NAME(LAYOUT)",
    validate=_checked_by(lambda v: parse_layouts(v, allow_arrow=False)),
    help="the layout the IR input takes, e.g. data(nchw) (a Transpose is inserted)",
)
BATCH: Option[int | None] = Option(
    "prep.batch",
    int,
    flag="--batch",
    keyword="batch",
    metavar="N",
    validate=_positive,
    help="set the batch dim (N of the input's layout) of every input",
)
FREEZE: Option[Any] = Option(
    "prep.freeze_placeholder_with_value",
    str,
    flag="--freeze-placeholder-with-value",
    keyword="freeze_placeholder_with_value",
    metavar="NAME[VALUE]",
    validate=_checked_by(parse_frozen),
    help="replace an input by a constant and fold, e.g. is_training[False] or keep_prob->1.0",
)
OPTIONS = (
    MEAN_VALUES,
    SCALE_VALUES,
    SCALE,
    REVERSE_INPUT_CHANNELS,
    LAYOUT,
    SOURCE_LAYOUT,
    TARGET_LAYOUT,
    BATCH,
    FREEZE,
)

