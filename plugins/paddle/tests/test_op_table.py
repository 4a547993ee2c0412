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


def test_every_extractor_of_a_legacy_name_has_its_pir_twin_or_none() -> None:
    """The table pairs names by the function they share: each row's names convert alike."""
    from irconv_paddle.op_table import op_table

    rows = [line for line in op_table().splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert rows and all(line.count("|") == 5 for line in rows)
