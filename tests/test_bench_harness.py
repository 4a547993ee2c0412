"""bench/harness.py, the speed benchmarks' measuring kit: a child's peak RSS and output, failures,
the alternating tool order and the summaries (no timing is asserted)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("irconv_bench_harness", Path(__file__).parents[1] / "bench" / "harness.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


harness = _harness()


def test_a_child_s_peak_rss_and_output_are_its_own() -> None:
    # 300 MiB touched by the child, not by this process
    code = "import sys; b = bytearray(300 << 20); print('out'); print('err', file=sys.stderr)"
    done = harness.run_process([sys.executable, "-c", code])
    assert done.peak_rss >= 300 << 20
    assert harness.self_peak_rss() > 0
    assert (done.stdout, done.stderr, done.returncode) == ("out\n", "err\n", 0)
    assert done.wall > 0 and done.cpu >= 0


def test_a_failing_child_raises_with_its_stderr_unless_asked_not_to() -> None:
    code = "import sys; sys.exit('cannot read the model')"
    with pytest.raises(harness.ProcessFailed, match="cannot read the model"):
        harness.run_process([sys.executable, "-c", code])
    assert harness.run_process([sys.executable, "-c", code], check=False).returncode == 1


def test_a_child_writing_more_than_a_pipe_holds_does_not_stall() -> None:
    done = harness.run_process([sys.executable, "-c", "import sys; sys.stderr.write('x' * (1 << 20))"])
    assert len(done.stderr) == 1 << 20


def test_each_tool_goes_first_in_turn() -> None:
    assert list(harness.alternating(["irconv", "ovc"], 3)) == [
        (0, "irconv"), (0, "ovc"), (1, "ovc"), (1, "irconv"), (2, "irconv"), (2, "ovc")]
    assert [tool for r, tool in harness.alternating(["a", "b", "c"], 3) if r == 2] == ["c", "a", "b"]


def test_runs_give_median_times_and_the_largest_peak() -> None:
    runs = harness.Runs()
    for wall, cpu, peak in ((3.0, 1.0, 10 << 20), (1.0, 5.0, 30 << 20), (2.0, 2.0, 20 << 20)):
        runs.add(harness.Process(wall, cpu, peak, 0, "", ""))
    assert (runs.wall, runs.cpu, runs.peak_mib) == (2.0, 2.0, 30.0)


def test_markdown_table() -> None:
    assert harness.markdown_table(["model", "s"], [["a", "1.0"]]) == "| model | s |\n|---|---|\n| a | 1.0 |"
