"""Run cases in child processes, so that a crash or a hang costs one case and not the run.

The conformance harnesses (``tests/conformance``, ``tests/tf_conformance``) and the accuracy
sweeps (``tests/sweeps``) share this runner. A child speaks one protocol: each line of its
stdout that is a JSON object is a record; a record with ``"start": true`` says which case it
begins, any other record is a result. A child that dies (or is killed at its timeout) after a
start record and before the next result died inside that case.

* ``run_cases_in_workers``: long-lived workers run a list of cases, one (case, engine) result record
  after another; a worker that dies is restarted on the cases left (the conformance harnesses).
* ``run_child``: one child for one case; its last record is the result (the sweeps).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

#: What a worker's own stderr becomes: a file object, ``subprocess.DEVNULL``, or None to keep
#: its last line for the report (in a temporary file: a pipe left unread can fill and block it).
Stderr = IO[Any] | int | None


@dataclass
class WorkerExit:
    """What one child process printed and how it ended."""

    records: list[dict[str, Any]]
    died_in: dict[str, Any] | None  # the start record of the case it was inside when it ended
    returncode: int
    timed_out: bool
    seconds: float
    stderr_tail: str  # its last stderr line when the stderr was kept, else ""


def run_worker(
    command: Sequence[str],
    *,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    stderr: Stderr = None,
    on_record: Callable[[dict[str, Any], str], None] | None = None,
) -> WorkerExit:
    """Run ``command``, reading its records as they come (``on_record(record, line)`` for each
    result); after ``timeout`` seconds it is killed with its process group."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") if stderr is None else contextlib.nullcontext(stderr) as err:
        proc = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=err, text=True,
                                env=dict(env) if env is not None else None, start_new_session=timeout is not None)
        fired = threading.Event()
        timer = threading.Timer(timeout, _kill_group, (proc, fired)) if timeout is not None else None
        if timer:
            timer.start()
        records: list[dict[str, Any]] = []
        current: dict[str, Any] | None = None
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                record = _record(line)
                if record is None:
                    continue
                if record.get("start"):
                    current = record
                    continue
                records.append(record)
                current = None
                if on_record:
                    on_record(record, line)
            proc.wait()
        finally:
            if timer:
                timer.cancel()
            if proc.poll() is None:
                _kill_group(proc, fired)
                proc.wait()
        tail = ""
        if stderr is None and not isinstance(err, int):  # our own temporary file: its last line
            err.seek(0)
            tail = (err.read().strip().splitlines() or [""])[-1][:200]
    return WorkerExit(records, current, proc.returncode, fired.is_set(), time.perf_counter() - started, tail)


def _record(line: str) -> dict[str, Any] | None:
    if not line.startswith("{"):
        return None
    try:
        record = json.loads(line)
    except ValueError:  # a library printed something brace-shaped
        return None
    return record if isinstance(record, dict) else None


def _kill_group(proc: subprocess.Popen[str], fired: threading.Event) -> None:
    """Kill the child and whatever it started (compile workers keep the stdout pipe open)."""
    fired.set()
    try:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL) if _own_group(proc) else proc.kill()
    except ProcessLookupError:
        pass


def _own_group(proc: subprocess.Popen[str]) -> bool:
    try:
        return os.getpgid(proc.pid) == proc.pid
    except ProcessLookupError:
        return False


# ----------------------------------------------------------------------- one child, one case
@dataclass
class ChildResult:
    """A one-case child's last record, or why there is none (``problem``)."""

    record: dict[str, Any] | None
    problem: str
    timed_out: bool
    seconds: float


def run_child(command: Sequence[str], timeout: float, env: Mapping[str, str] | None = None) -> ChildResult:
    """Run a child that prints its result as its last JSON line."""
    done = run_worker(command, timeout=timeout, env=env)
    if done.timed_out:
        return ChildResult(None, f"timed out after {timeout:.0f} s", True, done.seconds)
    if done.returncode != 0 or not done.records:
        problem = done.stderr_tail or f"exit code {done.returncode}, no output"
        return ChildResult(None, problem, False, done.seconds)
    return ChildResult(done.records[-1], "", False, done.seconds)


# ---------------------------------------------------------------- workers over a list of cases
@dataclass
class Results:
    """Every (case, engine) outcome ("pass" or why not) and each engine's seconds."""

    outcomes: dict[str, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def passed(self, engine: str, names: list[str]) -> int:
        return sum(1 for n in names if self.outcomes[n].get(engine) == "pass")

    def merge(self, other: Results) -> None:
        for name, outcome in other.outcomes.items():
            self.outcomes[name].update(outcome)
        for engine, seconds in other.seconds.items():
            self.seconds[engine] += seconds


def crash_outcomes(died_in: str, engines: Sequence[str], returncode: int) -> dict[str, str]:
    """The default record of a worker that died inside engine ``died_in`` of a case."""
    return {e: f"crash: worker exited with {returncode}" if e == died_in else "not run (crash)" for e in engines}


def run_cases_in_workers(
    ids: list[str],
    engines: Sequence[str],
    worker_command: Callable[[Path], list[str]],
    *,
    log: Path | None = None,
    jobs: int = 1,
    stderr: Stderr = subprocess.DEVNULL,
    crashed: Callable[[str, Sequence[str], int], dict[str, str]] = crash_outcomes,
) -> Results:
    """Run ``ids`` in ``jobs`` workers at once, restarting a worker on the cases left after a crash.

    ``worker_command(list_file)`` is the command of a worker that runs the ids listed in
    ``list_file`` (one per line) and prints a start and a result record per (case, engine);
    a result has ``case``, ``engine``, ``outcome`` and ``seconds``. ``crashed(engine,
    engines, returncode)`` gives the outcomes of the case a worker died in (``engine`` is the
    start record's). ``log`` receives every result as a JSON line as soon as it is known.
    """
    if jobs > 1 and len(ids) > 1:
        chunks = [ids[k::jobs] for k in range(jobs)]
        with ThreadPoolExecutor(jobs) as pool:
            parts = list(pool.map(
                lambda chunk: run_cases_in_workers(chunk, engines, worker_command, log=log, stderr=stderr, crashed=crashed),
                chunks))
        merged = Results()
        for part in parts:
            merged.merge(part)
        return merged
    results = Results()
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    log_file = open(log, "a") if log else None  # noqa: SIM115  (closed below)

    def record(result: dict[str, Any], line: str) -> None:
        results.outcomes[result["case"]][result["engine"]] = result["outcome"]
        results.seconds[result["engine"]] += result.get("seconds", 0.0)
        if log_file:
            log_file.write(line)
            log_file.flush()

    try:
        pending = list(ids)
        while pending:
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write("\n".join(pending))
                list_path = Path(f.name)
            try:
                done = run_worker(worker_command(list_path), env=env, stderr=stderr, on_record=record)
            finally:
                list_path.unlink()
            finished = {n for n in pending if len(results.outcomes.get(n, {})) == len(engines)}
            if done.died_in is not None:
                case = done.died_in["case"]
                for engine, outcome in crashed(done.died_in["engine"], engines, done.returncode).items():
                    results.outcomes[case].setdefault(engine, outcome)
                finished.add(case)
            elif done.returncode != 0 and not finished:
                raise RuntimeError(f"conformance worker failed with exit code {done.returncode}")
            pending = [n for n in pending if n not in finished]
    finally:
        if log_file:
            log_file.close()
    return results
