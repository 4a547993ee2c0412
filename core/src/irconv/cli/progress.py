"""Progress display for ``irconv convert`` on a terminal, and the ``--verbose`` transform table.

``rich`` draws the bar when it is installed (``pip install irconv-core[progress]``); otherwise
a plain one-line display is rewritten in place with ``\\r``. Nothing is shown when the stream
is not a terminal or with ``--quiet``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from irconv.cli.table import format_table
from irconv.contract.progress import NoProgress

if TYPE_CHECKING:
    from irconv.pipeline.phases import TransformRun


def make_progress(stream: IO[str], *, quiet: bool) -> Any:
    """A ``Progress`` for ``stream`` (one that shows nothing when quiet or not a terminal)."""
    if quiet or not _is_terminal(stream):
        return NoProgress()
    try:
        import rich.progress  # noqa: F401 - optional extra
    except ImportError:
        return PlainProgress(stream)
    return RichProgress(stream)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _amount(value: float, unit: str) -> str:
    if unit != "B":
        return f"{int(value)}"
    for suffix in ("B", "kB", "MB", "GB"):
        if value < 1024 or suffix == "GB":
            return f"{value:.0f} {suffix}" if suffix == "B" else f"{value:.1f} {suffix}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover


class PlainProgress:
    """``[stage 3/…] middle transforms  12/40 transforms  fuse.swish  2.1 s`` on one line."""

    MIN_INTERVAL = 0.1

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._name = ""
        self._total: int | None = None
        self._unit = ""
        self._done = 0
        self._item = ""
        self._stages = 0
        self._start = time.perf_counter()
        self._last_draw = 0.0
        self._width = 0

    def stage(self, name: str, total: int | None = None, unit: str = "") -> None:
        with self._lock:
            self._name, self._total, self._unit, self._done, self._item = name, total, unit, 0, ""
            self._stages += 1
            self._draw(force=True)

    def advance(self, amount: int = 1, item: str = "") -> None:
        with self._lock:
            self._done += amount
            if item:
                self._item = item
            self._draw(force=False)

    def finish(self) -> None:
        with self._lock:
            if self._width:
                self._stream.write("\r" + " " * self._width + "\r")
                self._stream.flush()
            self._width = 0

    def _draw(self, *, force: bool) -> None:
        now = time.perf_counter()
        if not force and now - self._last_draw < self.MIN_INTERVAL:
            return
        self._last_draw = now
        text = f"[{self._stages}] {self._name}"
        if self._total:
            text += f"  {_amount(self._done, self._unit)}/{_amount(self._total, self._unit)}"
            if self._unit != "B":
                text += f" {self._unit}"
        if self._item:
            text += f"  {self._item}"
        text += f"  {now - self._start:.1f} s"
        pad = max(0, self._width - len(text))
        self._stream.write("\r" + text + " " * pad)
        self._stream.flush()
        self._width = len(text)


class RichProgress:
    """The same reports drawn by ``rich`` (a bar per stage, transient)."""

    def __init__(self, stream: IO[str]) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self._lock = threading.Lock()
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[amount]}"),
            TextColumn("{task.fields[item]}"),
            TimeElapsedColumn(),
            console=Console(file=stream),
            transient=True,
        )
        self._bar.start()
        self._task: Any = None
        self._unit = ""
        self._total: int | None = None

    def stage(self, name: str, total: int | None = None, unit: str = "") -> None:
        with self._lock:
            if self._task is not None:
                self._bar.remove_task(self._task)
            self._unit = unit
            amount = f"0/{_amount(total, unit)}" if total else ""
            self._task = self._bar.add_task(name, total=total or None, amount=amount, item="")
            self._total = total

    def advance(self, amount: int = 1, item: str = "") -> None:
        with self._lock:
            if self._task is None:
                return
            self._bar.advance(self._task, amount)
            done = self._bar.tasks[-1].completed if self._bar.tasks else 0
            text = f"{_amount(done, self._unit)}/{_amount(self._total, self._unit)}" if self._total else ""
            if item:
                self._bar.update(self._task, amount=text, item=item)
            else:
                self._bar.update(self._task, amount=text)

    def finish(self) -> None:
        with self._lock:
            self._bar.stop()


def transform_table(runs: Sequence[TransformRun]) -> str:
    """``--verbose``: per transform, whether it changed the graph, its time and node delta."""
    rows = []
    for run in runs:
        delta = run.nodes_after - run.nodes_before
        rows.append(
            [
                run.id,
                "yes" if run.changed else "no",
                f"{run.seconds * 1000:.1f}",
                f"{run.nodes_before} -> {run.nodes_after}",
                f"{delta:+d}" if delta else "0",
            ]
        )
    return format_table(["transform", "changed", "ms", "nodes", "delta"], rows)


def stage_line(seconds: dict[str, float]) -> str:
    return "stages: " + ", ".join(f"{name} {value:.2f} s" for name, value in seconds.items())
