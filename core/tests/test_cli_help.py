"""``irconv --help``, ``irconv ops --help`` and ``irconv --version`` name what is installed:
the lists come from the installed plugins and the registry, never from a fixed text."""

from __future__ import annotations

import importlib.metadata as metadata
import sys
import textwrap

import pytest
from irconv.cli.main import main
from irconv.plugins import compat

FAKE_PLUGIN = """
from irconv.plugins import Loader, hookimpl


def load_toy(path, ctx):
    raise NotImplementedError


@hookimpl
def load_model():
    return [Loader("toyframe", load_toy, suffixes=(".toyframe",), description="Toy frames (.toyframe)")]
"""


def _install(site, dist: str, version: str, module: str, source: str, requires: str = "") -> None:
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {dist}", f"Version: {version}", f"Summary: the {dist} plugin"]
    if requires:
        lines.append(f"Requires-Dist: {requires}")
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "entry_points.txt").write_text(f"[irconv]\n{dist.split('-', 1)[1]} = {module}\n")


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """Two more installed plugins: one with a loader, one made for a core from long ago."""
    site = tmp_path / "site"
    site.mkdir()
    _install(site, "irconv-toyframe", "3.1.4", "toyframe_irconv_plugin", FAKE_PLUGIN)
    _install(site, "irconv-ancient", "0.0.1", "ancient_irconv_plugin", "", requires="irconv-core<0.0.2")
    monkeypatch.syspath_prepend(str(site))
    yield
    for module in ("toyframe_irconv_plugin", "ancient_irconv_plugin"):
        sys.modules.pop(module, None)


def _output(capsys, argv: list[str]) -> str:
    try:
        code = main(argv)
    except SystemExit as done:  # argparse's --help
        code = done.code
    assert code == 0
    return capsys.readouterr().out


def _lines_naming(text: str, *words: str) -> list[str]:
    return [line for line in text.splitlines() if all(w in line.split() for w in words)]


def test_help_lists_every_installed_plugin_with_its_distribution(installed, capsys):
    text = _output(capsys, ["--help"])
    for entry_point in metadata.entry_points(group="irconv"):
        if entry_point.dist is not None:
            assert _lines_naming(text, entry_point.name, entry_point.dist.metadata["Name"]), entry_point.name
    assert _lines_naming(text, "toyframe", "irconv-toyframe", "3.1.4")
    assert "ONNX, TensorFlow and Caffe" not in text


def test_ops_help_lists_the_frameworks_the_registry_has_loaders_for(installed, capsys):
    text = _output(capsys, ["ops", "--help"])
    assert _lines_naming(text, "toyframe", "irconv-toyframe", "3.1.4")
    assert "Toy frames (.toyframe)" in text
    assert "irconv-ancient" not in text  # left out, so it provides nothing


def test_version_names_the_core_and_every_plugin(installed, capsys):
    text = _output(capsys, ["--version"])
    first, *rest = text.splitlines()
    assert first == f"irconv {metadata.version('irconv-core')}"
    for entry_point in metadata.entry_points(group="irconv"):
        if entry_point.dist is not None:
            assert _lines_naming(text, entry_point.name, entry_point.dist.metadata["Name"], entry_point.dist.version)
    if compat.core_version() is not None:
        assert _lines_naming(text, "ancient", "irconv-ancient", "0.0.1", "made", "for", "irconv-core<0.0.2")


def test_version_and_help_import_no_plugin(installed, capsys):
    _output(capsys, ["--version"])
    _output(capsys, ["--help"])
    assert "toyframe_irconv_plugin" not in sys.modules
