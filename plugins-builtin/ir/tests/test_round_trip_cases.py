"""emit -> read -> emit is identical for the one-op graph of every opset runtime case."""

from __future__ import annotations

from pathlib import Path

import pytest
from irconv.testing.runtime import emit_ir

CASES_DIR = Path(__file__).resolve().parents[2] / "opset" / "tests"


def _case_params():  # type: ignore[no-untyped-def]
    from irconv_opset.testing import case_params, load_case_files

    return [pytest.param(case, dynamic, id=name) for name, case, dynamic in case_params(load_case_files(CASES_DIR))]


@pytest.mark.parametrize(("case", "dynamic"), _case_params())
def test_opset_case_round_trips(case, dynamic, tmp_path, installed_host, reemit):
    from irconv_opset.testing import build_case_graph

    built = build_case_graph(case, dynamic)
    first = emit_ir(built.graph, tmp_path / "a.xml", installed_host, compress_to_fp16=True)
    second = tmp_path / "b.xml"
    reemit(first, second, compress_to_fp16=True)
    assert first.read_text() == second.read_text()
    assert first.with_suffix(".bin").read_bytes() == second.with_suffix(".bin").read_bytes()
