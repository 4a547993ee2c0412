"""irconv.testing.worker: records read from child processes, a crash costing one case, timeouts."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from irconv.testing.worker import run_cases_in_workers, run_child

#: A worker running the ids of a list file: ``crash`` kills it inside the case (once per
#: marker file, so the restarted worker goes on), anything else passes with engine "a"
#: and fails with engine "b".
WORKER = textwrap.dedent("""
    import json, os, sys
    ids = open(sys.argv[1]).read().split("\\n")
    for case in ids:
        for engine in ("a", "b"):
            print(json.dumps({"case": case, "engine": engine, "start": True}), flush=True)
            if case == "crash" and engine == "b":
                os._exit(3)
            outcome = "pass" if engine == "a" else "mismatch: b"
            print(json.dumps({"case": case, "engine": engine, "outcome": outcome, "seconds": 0.5}), flush=True)
""")


def test_cases_run_and_a_crash_costs_one_case(tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    log = tmp_path / "log.jsonl"
    results = run_cases_in_workers(["one", "crash", "two"], ["a", "b"], lambda listed: [sys.executable, str(script), str(listed)],
                                   log=log)
    assert results.outcomes["one"] == {"a": "pass", "b": "mismatch: b"}
    assert results.outcomes["crash"] == {"a": "pass", "b": "crash: worker exited with 3"}
    assert results.outcomes["two"] == {"a": "pass", "b": "mismatch: b"}  # the restarted worker ran it
    assert results.passed("a", ["one", "crash", "two"]) == 3
    assert results.seconds["a"] == 1.5
    assert len(log.read_text().splitlines()) == 5


def test_two_workers_give_the_same_results(tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    ids = ["one", "two", "three", "four"]
    results = run_cases_in_workers(ids, ["a", "b"], lambda listed: [sys.executable, str(script), str(listed)], jobs=2)
    assert {n: results.outcomes[n]["a"] for n in ids} == dict.fromkeys(ids, "pass")
    assert results.seconds["b"] == 2.0


def test_child_result_is_its_last_record() -> None:
    code = 'import json; print("log line"); print(json.dumps({"ok": 1})); print(json.dumps({"ok": 2}))'
    result = run_child([sys.executable, "-c", code], timeout=60)
    assert result.record == {"ok": 2} and not result.problem


def test_child_failure_reports_its_last_stderr_line() -> None:
    result = run_child([sys.executable, "-c", "raise SystemExit('no model builds')"], timeout=60)
    assert result.record is None and result.problem == "no model builds"


def test_child_past_its_timeout_is_killed() -> None:
    result = run_child([sys.executable, "-c", "import time; print('{}', flush=True); time.sleep(60)"], timeout=1)
    assert result.timed_out and result.problem == "timed out after 1 s" and result.seconds < 30
