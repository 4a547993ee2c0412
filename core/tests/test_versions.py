"""Versions: a plugin declares the core versions it works with, and the host checks that range
before importing the plugin (one message naming plugin, range and installed core)."""

from __future__ import annotations

import importlib.metadata as metadata
import sys
import textwrap

import pytest
from irconv.errors import PluginError
from irconv.plugins import compat
from irconv.plugins.manager import PluginHost
from packaging.specifiers import SpecifierSet
from packaging.version import Version


def _write_distribution(site, dist: str, version: str, requires: list[str], module: str | None = None):
    """A dist-info folder as pip leaves it; with ``module``, an ``irconv`` entry point to it."""
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {dist}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    if module is not None:
        (info / "entry_points.txt").write_text(f"[irconv]\n{dist.split('-', 1)[1]} = {module}\n")
    return metadata.PathDistribution(info)


@pytest.mark.parametrize(
    ("requires", "expected"),
    [
        (["irconv-core>=0.2,<0.3", "numpy>=1.24"], ">=0.2,<0.3"),
        (["numpy>=1.24", "irconv_core==0.2.0"], "==0.2.0"),  # names compare canonicalised
        (["irconv-core"], None),  # named without a range: any core
        (["numpy>=1.24"], None),
        (['irconv-core<0.1; extra == "old"', "irconv-core>=0.2"], ">=0.2"),  # an extra's line is not the plugin's
    ],
)
def test_the_declared_core_range_is_read_from_the_requirements(tmp_path, requires, expected):
    dist = _write_distribution(tmp_path, "irconv-thing", "1.0", requires)
    assert compat.required_core(dist) == (SpecifierSet(expected) if expected else None)


def test_a_plugin_within_its_range_is_compatible(tmp_path):
    dist = _write_distribution(tmp_path, "irconv-thing", "1.0", ["irconv-core>=0.2,<0.3"])
    assert compat.incompatibility("thing", dist, Version("0.2.0")) is None
    assert compat.incompatibility("thing", dist, Version("0.2.7")) is None
    assert compat.incompatibility("thing", dist, Version("0.2.1rc1")) is None


def test_a_plugin_outside_its_range_gets_one_message_saying_what_to_do(tmp_path):
    dist = _write_distribution(tmp_path, "irconv-thing", "1.0", ["irconv-core>=0.2,<0.3"])
    message = compat.incompatibility("thing", dist, Version("0.3.0"))
    assert message == (
        "plugin 'thing' from irconv-thing 1.0 needs irconv-core>=0.2,<0.3, but irconv-core 0.3.0 is installed: "
        "install a release of irconv-thing made for irconv-core 0.3.0 (pip install --upgrade irconv-thing), "
        "or irconv-core>=0.2,<0.3"
    )


def test_nothing_is_checked_without_an_installed_core_or_distribution(tmp_path, monkeypatch):
    dist = _write_distribution(tmp_path, "irconv-thing", "1.0", ["irconv-core<0.1"])
    assert compat.incompatibility("thing", None, Version("0.2.0")) is None  # registered by hand
    monkeypatch.setattr(compat, "core_version", lambda: None)  # the core runs from a source tree
    assert compat.incompatibility("thing", dist) is None


@pytest.fixture
def plugin_for_an_older_core(tmp_path, monkeypatch):
    """An installed plugin whose declared range excludes the installed core."""
    if compat.core_version() is None:
        pytest.skip("irconv-core runs from a source tree: there is no installed version to check against")
    site = tmp_path / "site"
    site.mkdir()
    (site / "old_irconv_plugin.py").write_text(
        textwrap.dedent("""
        raise AssertionError("a plugin made for another core must not be imported")
    """)
    )
    _write_distribution(site, "irconv-old", "0.0.5", ["irconv-core>=0.0.1,<0.1"], module="old_irconv_plugin")
    monkeypatch.syspath_prepend(str(site))
    yield
    sys.modules.pop("old_irconv_plugin", None)


def test_the_host_leaves_out_a_plugin_made_for_another_core_without_importing_it(plugin_for_an_older_core):
    infos = {p.name: p for p in PluginHost().plugins(complete=False)}
    assert infos["old"].status == "failed"
    assert infos["old"].error.startswith("plugin 'old' from irconv-old 0.0.5 needs irconv-core>=0.0.1,<0.1, but ")
    assert "old_irconv_plugin" not in sys.modules


def test_strict_mode_makes_a_plugin_for_another_core_fatal(plugin_for_an_older_core):
    with pytest.raises(PluginError, match=r"plugin 'old' from irconv-old 0\.0\.5 needs irconv-core"):
        PluginHost(strict=True)


def test_every_installed_plugin_declares_a_range_the_installed_core_satisfies():
    """The real distributions of this environment pass the check the host makes."""
    core = compat.core_version()
    if core is None:
        pytest.skip("irconv-core runs from a source tree")
    for entry_point in metadata.entry_points(group="irconv"):
        dist = entry_point.dist
        if dist is not None:
            assert compat.incompatibility(entry_point.name, dist, core) is None
