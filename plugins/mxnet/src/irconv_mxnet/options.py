"""The options irconv-mxnet declares (kept free of heavy imports: the CLI builds its flags
from them)."""

from __future__ import annotations

from irconv.plugins import Option

EPOCH: Option[int | None] = Option(
    "mxnet.epoch",
    int,
    default=None,
    help="which <prefix>-NNNN.params to read beside the symbol (default: the newest epoch)",
    flag="--mxnet-epoch",
    keyword="mxnet_epoch",
    validate=lambda value: None if value is None or value >= 0 else "an epoch is a number >= 0",
)
