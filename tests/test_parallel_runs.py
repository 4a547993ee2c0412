"""The README's test run is parallel (pytest-xdist): a test whose worker crashes is reported,
re-run once in a fresh worker, and fails the run only if it crashes again; the run goes on.

Each case runs a small suite in a child pytest with two workers and the repository's root
conftest.py (which holds the re-run), and reads its outcome.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdist")

ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

# The crashing test dies of a real SIGSEGV (a read of address 0), as a native library's would.
SUITE = '''
import ctypes
from pathlib import Path


def crash_the_process():
    ctypes.string_at(0)


def test_crashes_once():
    marker = Path({marker!r})
    if not marker.exists():
        marker.write_text("")
        crash_the_process()


def test_always_crashes():
    {always}


def test_fails_without_crashing():
    {fails}


def test_after_1():
    assert True


def test_after_2():
    assert True


def test_after_3():
    assert True
'''


def run_suite(pytester: pytest.Pytester, *, always_crash: bool, fail: bool) -> pytest.RunResult:
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    pytester.makepyfile(test_suite=SUITE.format(marker=str(pytester.path / "crashed-once"),
                                                always="crash_the_process()" if always_crash else "pass",
                                                fails="assert 1 == 2" if fail else "pass"))
    return pytester.runpytest_subprocess("-n", "2", "--dist", "worksteal", "-p", "no:cacheprovider", "-rA", timeout=300)


def test_a_test_that_crashes_once_is_rerun_and_the_run_passes(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, always_crash=False, fail=False)
    result.stdout.fnmatch_lines(["*test_crashes_once: its worker crashed; re-running it in a fresh worker*",
                                 "*PASSED test_suite.py::test_crashes_once*"])
    assert result.parseoutcomes() == {"passed": 6, "rerun": 1}, result.stdout.str()
    assert result.ret == pytest.ExitCode.OK


def test_a_second_crash_fails_and_an_ordinary_failure_is_not_rerun(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, always_crash=True, fail=True)
    result.stdout.fnmatch_lines_random([
        "*test_always_crashes: its worker crashed; re-running it in a fresh worker*",
        "*crashed while running 'test_suite.py::test_always_crashes', the second time*",
        "FAILED test_suite.py::test_always_crashes*",
        "FAILED test_suite.py::test_fails_without_crashing*",
        "PASSED test_suite.py::test_crashes_once*",
    ])
    assert "test_fails_without_crashing: its worker crashed" not in result.stdout.str()
    # The run went on past both crashes: every other test ran and passed.
    assert result.parseoutcomes() == {"passed": 4, "failed": 2, "rerun": 2}, result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
