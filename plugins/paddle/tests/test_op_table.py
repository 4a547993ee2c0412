"""docs/paddle.md lists exactly the operators the extractors handle, beside OpenVINO's."""

from __future__ import annotations

from pathlib import Path

import pytest

DOCUMENT = Path(__file__).resolve().parents[3] / "docs" / "paddle.md"


def test_docs_op_table_is_current() -> None:
    from irconv_paddle.op_table import render

    if not DOCUMENT.exists():
        pytest.skip("docs/paddle.md is not part of this checkout")
    assert DOCUMENT.read_text() == render(DOCUMENT.read_text()), "run: python -m irconv_paddle.op_table docs/paddle.md"

