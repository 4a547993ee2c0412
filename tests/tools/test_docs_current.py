"""docs/ops is generated from the registries (`irconv docs --out docs/ops`): it must be current."""

from __future__ import annotations

from pathlib import Path

import pytest
from irconv.cli.gendocs import generate, stale_pages, write
from irconv.cli.main import main
from irconv.plugins import PluginHost

DOCS = Path(__file__).resolve().parents[2] / "docs" / "ops"


def test_docs_ops_are_current(tmp_path):
    pytest.importorskip("irconv_onnx")
    pages = generate(PluginHost())
    write(pages, tmp_path)
    stale = stale_pages(pages, DOCS)
    assert not stale, f"docs/ops is out of date ({', '.join(stale)}): run `irconv docs --out docs/ops`"
    for name in pages:
        assert (tmp_path / name).read_text() == (DOCS / name).read_text()


def test_docs_command_writes_and_checks(tmp_path, capsys):
    assert main(["docs", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "README.md").is_file() and (tmp_path / "opset.md").is_file()
    assert main(["docs", "--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "opset.md").write_text("edited by hand")
    assert main(["docs", "--out", str(tmp_path), "--check"]) == 1
    assert "opset.md" in capsys.readouterr().out
