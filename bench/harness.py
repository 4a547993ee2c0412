"""What every speed benchmark of bench/ measures with: whole processes, rounds, medians, tables.

A benchmark script imports it as ``harness`` (``python bench/<script>.py`` puts this folder on
``sys.path``):

* ``run_process(cmd)``: one child process's wall time, CPU time (user + system) and peak RSS,
  from ``os.wait4`` (the child alone, whatever else runs on the machine);
* ``alternating(tools, rounds)``: the tool order of each round, each tool first in turn (two
  tools: the order flips every round), so that no tool always runs on a warm (or cold) cache;
* ``Runs``: one tool's figures over the rounds, summarized as median wall, median CPU and
  largest peak RSS;
* ``best_of`` and ``median_of`` for in-process timings, ``self_peak_rss`` for a measuring child;
* ``markdown_table`` for the printed table;
* ``use_test_helpers(folder)``: the model builders of ``tests/<folder>`` importable (they import
  their siblings by name, as pytest's rootdir-less import mode lets them), the one place a
  benchmark reaches into the tests.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

MIB = 2**20
TESTS = Path(__file__).resolve().parents[1] / "tests"


class ProcessFailed(RuntimeError):
    """A measured process exited non-zero; ``stderr`` holds what it printed there."""

    def __init__(self, cmd: Sequence[str], returncode: int, stderr: str) -> None:
        super().__init__(f"{' '.join(cmd)} failed ({returncode}):\n{stderr[-2000:]}")
        self.returncode = returncode
        self.stderr = stderr


@dataclass(frozen=True)
class Process:
    """One finished child process."""

    wall: float  # seconds, start to exit
    cpu: float  # seconds, user + system
    peak_rss: int  # bytes
    returncode: int
    stdout: str
    stderr: str


def run_process(
    cmd: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    check: bool = True,
) -> Process:
    """Run ``cmd`` to its end and measure it. Its output goes to temporary files (a full pipe
    would stall it while it is being timed); ``check`` raises ProcessFailed on a non-zero exit."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, env=dict(env) if env is not None else None, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = (f.read().decode(errors="replace") for f in (out, err))
    if check and returncode != 0:
        raise ProcessFailed(cmd, returncode, stderr)
    return Process(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, returncode, stdout, stderr)


def alternating(tools: Sequence[str], rounds: int) -> Iterator[tuple[int, str]]:
    """(round, tool) in running order; round ``r`` starts with tool ``r % len(tools)``."""
    for r in range(rounds):
        first = r % len(tools)
        for tool in [*tools[first:], *tools[:first]]:
            yield r, tool


@dataclass
class Runs:
    """One tool's processes over the rounds."""

    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    peaks: list[int] = field(default_factory=list)

    def add(self, process: Process) -> None:
        self.walls.append(process.wall)
        self.cpus.append(process.cpu)
        self.peaks.append(process.peak_rss)

    @property
    def wall(self) -> float:
        """Median wall seconds."""
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        """Median CPU seconds."""
        return statistics.median(self.cpus)

    @property
    def peak_mib(self) -> float:
        """Largest peak RSS, MiB."""
        return max(self.peaks) / MIB


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The shortest of ``repeat`` timings of ``run()``, seconds (the least disturbed one)."""
    return min(_timed(run) for _ in range(repeat))


def median_of(repeat: int, run: Callable[[], object]) -> float:
    """The median of ``repeat`` timings of ``run()``, seconds."""
    return statistics.median(_timed(run) for _ in range(repeat))


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def self_peak_rss() -> int:
    """This process's peak RSS so far, bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table; cells are printed as given (format numbers before)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def use_test_helpers(*folders: str) -> None:
    """Put ``tests/<folder>`` first on ``sys.path`` for each folder (once)."""
    for folder in reversed(folders):
        path = str(TESTS / folder)
        if path not in sys.path:
            sys.path.insert(0, path)
