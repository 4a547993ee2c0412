"""The generated table inside a document: spliced between its markers, checked for staleness."""

from __future__ import annotations

import pytest
from irconv.frontend.doc_tables import splice, table_command

BEGIN, END = "<!-- t:begin -->", "<!-- t:end -->"


def _render(text: str) -> str:
    return splice(text, BEGIN, END, "| a |")


def test_the_table_replaces_what_stands_between_the_markers_only():
    document = f"intro\n{BEGIN}\nold rows\n{END}\noutro\n"
    assert splice(document, BEGIN, END, "| a |") == f"intro\n{BEGIN}\n| a |\n{END}\noutro\n"


def test_a_document_without_the_markers_is_refused():
    with pytest.raises(SystemExit, match="no <!-- t:begin --> ... <!-- t:end --> markers"):
        splice("no markers here", BEGIN, END, "| a |")


def test_check_fails_on_a_stale_table_and_rewriting_makes_it_current(tmp_path, capsys):
    document = tmp_path / "doc.md"
    document.write_text(f"{BEGIN}\nold\n{END}\n")
    assert table_command([str(document), "--check"], "t", _render, "test table", "make table") == 1
    assert "doc.md: the test table is stale; run make table" in capsys.readouterr().err
    assert table_command([str(document)], "t", _render, "test table", "make table") == 0
    assert document.read_text() == f"{BEGIN}\n| a |\n{END}\n"
    assert table_command([str(document), "--check"], "t", _render, "test table", "make table") == 0
