"""The layout plugin's options and graph facts."""

from __future__ import annotations

from irconv import MetaKey, Option

LAYOUT_INPUTS: Option[str | None] = Option(
    "layout.inputs",
    str,
    choices=("nchw",),
    flag="--layout-inputs",
    keyword="layout_inputs",
    help="give channels-last models channels-first (NCHW) inputs",
)
DISABLE_NHWC_TO_NCHW: Option[bool] = Option(
    "layout.disable_nhwc_to_nchw",
    bool,
    default=False,
    flag="--disable-nhwc-to-nchw",
    keyword="disable_nhwc_to_nchw",
    help="keep channels-last ops wrapped in transposes (no transpose sinking or cancelling)",
)
OPTIONS = (LAYOUT_INPUTS, DISABLE_NHWC_TO_NCHW)

#: The rank of the channels-last layout of wrapped nodes (set when any node was wrapped).
WRAPPED_RANK: MetaKey[int] = MetaKey("layout.channels_last_rank", int)
