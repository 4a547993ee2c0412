"""The TensorFlow per-op conformance suite through irconv, held to ``xfail.txt``.

CI runs a fixed, evenly spread sample of the cases with irconv only (the strict
expected-failure check, well under two minutes); the full run, side by side with
OpenVINO's own converter, is

    python tests/tf_conformance/harness.py

or ``pytest tests/tf_conformance -m slow``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

#: Cases in the CI sample (every n-th case of the sorted list).
CI_SAMPLE = 60


def _harness() -> ModuleType:
    name = "irconv_tf_conformance_harness"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("harness.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_sample_matches_expected_failures() -> None:
    harness = _harness()
    cases = harness.cases_module().collect_cases()
    ids = harness.select(cases, [], CI_SAMPLE)
    results = harness.run_cases(ids, ["irconv"], jobs=1)
    problems = harness.check_xfail(results, ids, harness.read_xfail())
    assert not problems, "\n".join(problems)


def test_expected_failures_name_real_cases_with_reasons() -> None:
    harness = _harness()
    listed = harness.read_xfail()
    cases = harness.cases_module().collect_cases()
    unknown = sorted(set(listed) - set(cases))
    assert not unknown, f"xfail.txt lists cases that do not exist: {unknown[:10]}"
    assert all(reason.startswith(("irconv:", "OpenVINO:")) for reason in listed.values()), (
        "every expected failure needs a reason naming its cause (irconv: / OpenVINO:)"
    )


def test_every_op_of_the_union_has_a_case_or_a_reason() -> None:
    """Each op with an irconv extractor and each op of OpenVINO's documented list has a case,
    or is listed in cases.NO_CASE with the reason it cannot have one."""
    module = _harness().cases_module()
    with_case = {c.op for c in module.collect_cases().values()}
    union = set(module.registered_ops()) | set(module.openvino_ops())
    missing = sorted(union - with_case - set(module.NO_CASE))
    assert not missing, f"TF ops with no conformance case: {missing}"


@pytest.mark.slow
def test_full_suite_beats_openvino_converter() -> None:
    harness = _harness()
    cases = harness.cases_module().collect_cases()
    ids = harness.select(cases, [], None)
    results = harness.run_cases(ids, ["irconv", "ovc"], jobs=2)
    counted = harness.valid(results, ids)
    problems = harness.check_xfail(results, ids, harness.read_xfail())
    assert not problems, "\n".join(problems)
    ours, theirs = results.passed("irconv", counted), results.passed("ovc", counted)
    assert ours > theirs, f"irconv {ours} vs OpenVINO's converter {theirs} of {len(counted)}"
