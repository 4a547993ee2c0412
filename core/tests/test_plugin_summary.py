"""``irconv plugins`` from the summary cache: no plugin imported until the environment changes."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest
from irconv.plugins import PluginHost

PLUGIN = """
from pathlib import Path
from irconv.plugins import Extractor, hookimpl

Path({marker!r}).open("a").write("imported\\n")

@hookimpl
def extract_op():
    return [Extractor("toy", "Thing", lambda node, ctx: None)]
"""


@pytest.fixture
def site(tmp_path, monkeypatch):
    """An installed distribution ``irconv-counted`` whose plugin module notes each import."""
    root = tmp_path / "site"
    root.mkdir()
    marker = tmp_path / "imports.txt"
    (root / "counted_irconv_plugin.py").write_text(textwrap.dedent(PLUGIN.format(marker=str(marker))))
    info = root / "irconv_counted-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: irconv-counted\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[irconv]\ncounted = counted_irconv_plugin\n")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("IRCONV_CACHE_DIR", str(tmp_path / "cache"))
    yield root, marker
    sys.modules.pop("counted_irconv_plugin", None)


def _imports(marker) -> int:
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def _summary() -> dict[str, object]:
    sys.modules.pop("counted_irconv_plugin", None)  # a new process would import it again
    plugin = {p.name: p for p in PluginHost().summary().plugins}["counted"]
    return {"status": plugin.status, "counts": plugin.counts, "hooks": plugin.hooks}


def test_summary_comes_from_the_cache_until_a_plugin_file_changes(site):
    root, marker = site
    first = _summary()
    assert first == {"status": "active", "counts": {"extractors": 1}, "hooks": ["extract_op"]}
    assert _imports(marker) == 1
    assert _summary() == first and _imports(marker) == 1  # served without importing the plugin
    source = root / "counted_irconv_plugin.py"
    source.write_text(source.read_text() + "# edited\n")
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    assert _summary() == first and _imports(marker) == 2  # changed file: built again


def test_a_failing_plugin_is_never_cached(site, tmp_path):
    root, _ = site
    (root / "counted_irconv_plugin.py").write_text("import module_that_does_not_exist\n")
    assert _summary()["status"] == "failed"
    assert not list((tmp_path / "cache").glob("plugins-*.json"))


def test_hosts_with_hand_registered_plugins_build_their_own_summary(site):
    from irconv.plugins import Extractor, hookimpl

    class Extra:
        @hookimpl
        def extract_op(self) -> list[Extractor]:
            return [Extractor("toy", "Other", lambda node, ctx: None)]

    _summary()  # the installed set is cached
    host = PluginHost()
    host.register(Extra(), "extra", distribution="irconv-extra", version="1")
    assert {p.name: p.counts for p in host.summary().plugins}["extra"] == {"extractors": 1}


def test_the_summary_is_the_same_whatever_a_host_built_before(site):
    """Tables are built on first use; the summary (what the cache keeps) calls every hook,
    so a host that converted something first reports the same as a fresh one."""
    from irconv.plugins import Extractor, Loader, Option, hookimpl

    class Several:
        @hookimpl
        def declare_options(self) -> list[Option[object]]:
            return [Option("several.level", int, default=1)]

        @hookimpl
        def load_model(self) -> list[Loader]:
            return [Loader("toy", lambda path, ctx: None)]

        @hookimpl
        def extract_op(self, framework: str | None) -> list[Extractor]:
            every = [Extractor("toy", "A", lambda node, ctx: None), Extractor("other", "B", lambda node, ctx: None)]
            return [e for e in every if framework in (None, e.framework)]

    def summary(use_first: bool) -> list[tuple[str, dict[str, int]]]:
        host = PluginHost()
        host.register(Several(), "several", distribution="irconv-several", version="1")
        if use_first:  # what a conversion of a "toy" model touches
            registry = host.registry()
            assert registry.loaders and registry.find_extractor("toy", "", "A", 1) is not None
        return [(p.name, p.counts) for p in host.summary().plugins]

    fresh, after_use = summary(False), summary(True)
    assert after_use == fresh
    counts = dict(fresh)["several"]
    assert list(counts.items()) == [("options", 1), ("loaders", 1), ("extractors", 2)]
