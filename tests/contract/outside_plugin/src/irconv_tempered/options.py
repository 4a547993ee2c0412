"""The plugin's conversion options."""

from __future__ import annotations

from irconv import Option

LOG: Option[bool] = Option(
    "tempered.log",
    bool,
    default=False,
    help="convert TemperedSoftmax to log-probabilities (LogSoftmax) instead of probabilities",
)
