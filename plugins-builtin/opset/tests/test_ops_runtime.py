"""Every op of the opset plugin, run in the OpenVINO runtime against its own infer/evaluate.

The cases come from ``cases_<family>.py`` beside this file; the coverage test fails for
any op in the catalog without a case. ReadValue and Assign are valid only as a pair on one
variable, which a one-op case cannot build: ``test_state.py`` runs them together.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from irconv.ops import Const, Parameter, Result
from irconv_opset import Assign, ReadValue
from irconv_opset.catalog import all_ops
from irconv_opset.testing import ConstInput, case_params, check_case, load_case_files

CASE_FILES = load_case_files(Path(__file__).parent)
PARAMS = case_params(CASE_FILES)


@pytest.mark.parametrize(("case", "dynamic"), [(c, d) for _, c, d in PARAMS], ids=[i for i, _, _ in PARAMS])
def test_op_matches_runtime(case, dynamic, tmp_path, installed_host):
    check_case(case, dynamic, tmp_path, installed_host)


@pytest.mark.parametrize("case_file", CASE_FILES, ids=[f.path.stem for f in CASE_FILES])
def test_case_file_imports(case_file):
    assert not case_file.error, f"{case_file.path.name} failed to import: {case_file.error}"


def test_every_op_has_a_case():
    cases = [case for f in CASE_FILES for case in f.cases]
    covered = {type(case.op) for case in cases} | {Parameter, Result} | {ReadValue, Assign}
    if any(isinstance(v, ConstInput) for case in cases for v in case.inputs):
        covered.add(Const)
    missing = [f"{op.__name__} ({op.type}-{op.version})" for op in all_ops() if op not in covered]
    assert not missing, f"{len(missing)} ops have no runtime case: {', '.join(missing)}"
