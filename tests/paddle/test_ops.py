"""Each Paddle operator family, saved by Paddle in both program forms, converted and run in
OpenVINO against Paddle's own inference of the saved program."""

from __future__ import annotations

import pytest
from paddle_cases import CASES
from paddle_compare import FORMS, check_saved


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_op_matches_paddle(case: str, form: str, saved_cases, tmp_path) -> None:  # type: ignore[no-untyped-def]
    check_saved(saved_cases(form), case, form, tmp_path)
