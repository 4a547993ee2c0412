"""Each Paddle operator family, saved by Paddle in both program forms, converted and run in
OpenVINO against Paddle's own inference of the saved program."""

from __future__ import annotations

import pytest
from paddle_cases import CASES
from paddle_compare import FORMS, check_saved


def _params() -> list[object]:
    params: list[object] = []
    for case in sorted(CASES):
        for form in sorted(set(FORMS) & set(CASES[case].forms)):
            reason = CASES[case].legacy_not_converted if form == "legacy" else None
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(case, form, marks=marks, id=f"{case}-{form}"))
    return params


@pytest.mark.parametrize(("case", "form"), _params())
def test_op_matches_paddle(case: str, form: str, saved_cases, tmp_path) -> None:  # type: ignore[no-untyped-def]
    check_saved(saved_cases(form), case, form, tmp_path)
