"""Progress of a conversion, for a display: the pipeline reports, the CLI draws."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """What a conversion is doing (the CLI shows it on a terminal).

    ``stage`` starts a stage (``total`` in ``unit`` when known: bytes, nodes, transforms),
    ``advance`` reports work done (``item`` names what is being worked on, e.g. a transform
    id), ``finish`` ends the conversion. Loaders and emitters report bytes through their
    context's ``progress``.
    """

    def stage(self, name: str, total: int | None = None, unit: str = "") -> None: ...

    def advance(self, amount: int = 1, item: str = "") -> None: ...

    def finish(self) -> None: ...


class Tally:
    """Passes reports on to ``progress`` and adds up the amounts, so the pipeline can
    complete a stage a plugin reported only part of (a loader that does not count bytes)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.done = 0

    def stage(self, name: str, total: int | None = None, unit: str = "") -> None:
        self.done = 0
        self.progress.stage(name, total, unit)

    def advance(self, amount: int = 1, item: str = "") -> None:
        self.done += amount
        self.progress.advance(amount, item)

    def finish(self) -> None:
        self.progress.finish()


class NoProgress:
    """A ``Progress`` that shows nothing (the default)."""

    def stage(self, name: str, total: int | None = None, unit: str = "") -> None:
        pass

    def advance(self, amount: int = 1, item: str = "") -> None:
        pass

    def finish(self) -> None:
        pass
