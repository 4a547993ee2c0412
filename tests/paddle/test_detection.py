"""Detection heads and post-processing (prior_box, yolo_box, multiclass_nms3), saved by
Paddle in both program forms, against Paddle's inference of the saved program."""

from __future__ import annotations

import pytest
from paddle_cases import DETECTION
from paddle_compare import FORMS, check_saved, save_models


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folders = {}
    for form in FORMS:
        folders[form] = tmp_path_factory.mktemp(f"detection-{form}")
        save_models(folders[form], form, "paddle_cases:DETECTION", DETECTION)
    return folders


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("case", sorted(DETECTION))
def test_detection_op_matches_paddle(case: str, form: str, saved, tmp_path) -> None:  # type: ignore[no-untyped-def]
    check_saved(saved[form], case, form, tmp_path)
