"""Whole networks of ``paddle.vision.models``, saved by Paddle in both program forms,
converted and run in OpenVINO against Paddle's inference of the saved program. The fast
ones run by default; the rest are marked slow (``-m slow``)."""

from __future__ import annotations

import pytest
from paddle_cases import VISION
from paddle_compare import FORMS, check_saved, save_models

FAST = {"resnet18", "mobilenet_v3_small", "shufflenet_v2_x0_25"}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in VISION])
def test_vision_model_matches_paddle(name: str, form: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    save_models(tmp_path, form, "paddle_cases:VISION", [name])
    check_saved(tmp_path, name, form, tmp_path, rtol=1e-3)
