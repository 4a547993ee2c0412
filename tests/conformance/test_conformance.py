"""The ONNX backend conformance suite through irconv, held to ``xfail.txt``.

CI runs a fixed, evenly spread sample of the cases with irconv only (the strict
expected-failure check); the full run, side by side with OpenVINO's own ONNX reader, is

    python tests/conformance/harness.py

or ``pytest tests/conformance -m slow``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

#: Cases in the CI sample (every n-th case of the sorted list).
CI_SAMPLE = 300


def _harness() -> ModuleType:
    path = Path(__file__).with_name("harness.py")
    spec = importlib.util.spec_from_file_location("irconv_onnx_conformance_harness", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_conformance_sample_matches_expected_failures() -> None:
    harness = _harness()
    cases = harness.collect_cases()
    names, _ = harness.select(cases, [], CI_SAMPLE)
    results = harness.run_cases(names, ["irconv"])
    problems = harness.check_xfail(results, names, harness.read_xfail())
    assert not problems, "\n".join(problems)


def test_expected_failures_name_real_cases_with_reasons() -> None:
    harness = _harness()
    listed = harness.read_xfail()
    cases = harness.collect_cases()
    unknown = sorted(set(listed) - set(cases))
    assert not unknown, f"xfail.txt lists cases that do not exist: {unknown[:10]}"
    assert all(reason for reason in listed.values()), "every expected failure needs a reason"


@pytest.mark.slow
def test_full_conformance_beats_openvino_reader() -> None:
    harness = _harness()
    cases = harness.collect_cases()
    names, _ = harness.select(cases, [], None)
    results = harness.run_cases(names, ["irconv", "openvino"])
    print(harness.table(results, cases, names))
    problems = harness.check_xfail(results, names, harness.read_xfail())
    assert not problems, "\n".join(problems)
    ours, theirs = results.passed("irconv", names), results.passed("openvino", names)
    assert ours > theirs, f"irconv {ours} vs OpenVINO reader {theirs}"
    assert ours >= 0.95 * len(names), f"irconv passes {ours} of {len(names)}"


def test_the_strict_check_lets_only_cpu_dependent_cases_pass_while_listed() -> None:
    harness = _harness()
    results = harness.Results()
    for name in ("listed", "cpu_dependent", "unlisted"):
        results.outcomes[name]["irconv"] = "pass"
    results.outcomes["failing"]["irconv"] = "mismatch"
    listed = {"listed": "irconv: a reason", "cpu_dependent": f"{harness.CPU_DEPENDENT} a reason",
              "failing": f"{harness.CPU_DEPENDENT} a reason"}
    problems = harness.check_xfail(results, ["listed", "cpu_dependent", "unlisted", "failing"], listed)
    assert problems == ["XPASS listed: passes now, remove it from xfail.txt"]
