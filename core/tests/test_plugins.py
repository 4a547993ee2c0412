import sys
import textwrap

import pytest
from irconv.contract.records import Phase
from irconv.errors import PluginError
from irconv.plugins import Emitter, Extractor, Loader, Option, PluginHost, Transform, hookimpl, opsets


def make_transform(tid, after=(), before=()):
    class T(Transform):
        id = tid
        run_after = after
        run_before = before

        def apply(self, graph, ctx):
            return False

    return T()


class Extracts:
    def __init__(self, *records):
        self.records = records

    @hookimpl
    def extract_op(self):
        return list(self.records)


class Middle:
    def __init__(self, *transforms):
        self.transforms = transforms

    @hookimpl
    def middle_transform(self):
        return list(self.transforms)


def noop_extract(node, ctx):
    raise AssertionError("not called")


def test_overlapping_extractors_name_both_distributions(plugin_host, register_plugin):
    register_plugin(Extracts(Extractor("onnx", "Gelu", noop_extract, opsets=opsets(1))), "a", "irconv-onnx", "0.3")
    register_plugin(Extracts(Extractor("onnx", "Gelu", noop_extract, opsets=opsets(20))), "b", "irconv-contrib", "1.1")
    registry = plugin_host.registry()  # tables are built on first use: the conflict shows there
    with pytest.raises(PluginError) as info:
        registry.find_extractor("onnx", "", "Gelu", 20)
    message = str(info.value)
    assert "onnx::Gelu" in message and "opsets 20+" in message
    with pytest.raises(PluginError, match="onnx::Gelu"):  # and again: nothing half-built was kept
        registry.complete()
    assert "irconv-onnx 0.3" in message and "irconv-contrib 1.1" in message


def test_disjoint_opset_ranges_coexist_and_dispatch_by_version(plugin_host, register_plugin):
    old = Extractor("onnx", "Softmax", noop_extract, opsets=opsets(1, 12))
    new = Extractor("onnx", "Softmax", noop_extract, opsets=opsets(13))
    register_plugin(Extracts(old), "a", "dist-a")
    register_plugin(Extracts(new), "b", "dist-b")
    registry = plugin_host.registry()
    assert registry.find_extractor("onnx", "", "Softmax", 11) is old
    assert registry.find_extractor("onnx", "", "Softmax", 13) is new
    assert registry.find_extractor("onnx", "", "Softmax", 21) is new


def test_same_transform_id_from_two_plugins_is_a_conflict(plugin_host, register_plugin):
    register_plugin(Middle(make_transform("fuse.x")), "a", "dist-a")
    register_plugin(Middle(make_transform("fuse.x")), "b", "dist-b")
    with pytest.raises(PluginError, match="fuse.x.*dist-a.*dist-b"):
        plugin_host.registry().plan(Phase.MIDDLE)


def test_same_emitter_format_or_loader_framework_is_a_conflict(plugin_host, register_plugin):
    class Emits:
        @hookimpl
        def emit(self):
            return [Emitter("ir11", lambda g, p, c: [])]

    class Emits2(Emits):
        pass

    register_plugin(Emits(), "a", "dist-a")
    register_plugin(Emits2(), "b", "dist-b")
    with pytest.raises(PluginError, match="ir11.*dist-a.*dist-b"):
        plugin_host.registry().emitters.get("ir11")

    host = PluginHost(autoload=False)

    class Loads:
        @hookimpl
        def load_model(self):
            return [Loader("onnx", lambda p, o: None)]

    host.register(Loads(), "x", distribution="dist-x")
    host.register(type("Loads2", (Loads,), {})(), "y", distribution="dist-y")
    with pytest.raises(PluginError, match="onnx.*dist-x.*dist-y"):
        host.registry().complete()


def plan_ids(host):
    return [p.item.id for p in host.registry().plan(Phase.MIDDLE)]


TRANSFORMS = [
    ("fuse.b", ("fuse.a",), ()),
    ("fuse.a", (), ()),
    ("layout.nchw", (), ("fuse.a",)),
    ("cleanup.z", (), ()),
    ("fuse.c", ("fuse.b",), ()),
]


def test_transform_order_is_topological_with_ties_by_id_and_independent_of_registration():
    orders = []
    for permutation in (TRANSFORMS, TRANSFORMS[::-1], TRANSFORMS[2:] + TRANSFORMS[:2]):
        host = PluginHost(autoload=False)
        for i, (tid, after, before) in enumerate(permutation):
            host.register(Middle(make_transform(tid, after, before)), f"p{i}", distribution=f"d{i}")
        orders.append(plan_ids(host))
    assert orders[0] == orders[1] == orders[2]
    assert orders[0] == ["cleanup.z", "layout.nchw", "fuse.a", "fuse.b", "fuse.c"]


def test_unknown_run_after_ids_are_ignored(plugin_host, register_plugin):
    register_plugin(Middle(make_transform("fuse.a", ("not.installed",))))
    assert plan_ids(plugin_host) == ["fuse.a"]


def test_a_cycle_is_reported_with_its_members(plugin_host, register_plugin):
    register_plugin(
        Middle(
            make_transform("t.a", ("t.c",)),
            make_transform("t.b", ("t.a",)),
            make_transform("t.c", ("t.b",)),
            make_transform("t.d", ("t.c",)),
        )
    )
    with pytest.raises(PluginError) as info:
        plugin_host.registry().plan(Phase.MIDDLE)
    message = str(info.value)
    assert "cycle" in message
    assert all(t in message for t in ("t.a", "t.b", "t.c")) and "t.d" not in message


def test_records_are_validated():
    with pytest.raises(PluginError, match="empty"):
        Extractor("onnx", "Relu", noop_extract, opsets=range(5, 5))
    with pytest.raises(PluginError, match="bad id"):
        make_transform("Not An Id")


def test_wrong_record_type_names_the_plugin(plugin_host, register_plugin):
    class Bad:
        @hookimpl
        def extract_op(self):
            return ["not a record"]

    register_plugin(Bad(), "badplugin", "irconv-bad")
    (info,) = plugin_host.plugins()
    assert info.status == "failed" and "extract_op returned 'not a record'" in info.error
    assert plugin_host.registry().all_extractors() == []

    strict = PluginHost(autoload=False, strict=True)
    strict.register(Bad(), "badplugin", distribution="irconv-bad")
    with pytest.raises(PluginError, match="plugin 'badplugin' \\(irconv-bad\\).*extract_op returned"):
        strict.registry()


def test_a_hook_that_raises_fails_only_its_own_plugin(plugin_host, register_plugin):
    class Raising:
        @hookimpl
        def middle_transform(self):
            import irconv_not_installed_anywhere  # noqa: F401

    class Fine:
        @hookimpl
        def declare_options(self):
            return [Option("fine.level", int, default=1)]

    register_plugin(Raising(), "raising", "irconv-raising")
    register_plugin(Fine(), "fine", "irconv-fine")
    infos = {p.name: p for p in plugin_host.plugins()}
    assert infos["raising"].status == "failed"
    assert "hook middle_transform failed: ModuleNotFoundError" in infos["raising"].error
    assert infos["fine"].status == "active" and infos["fine"].counts == {"options": 1}
    assert plugin_host.registry().options.names() == ["fine.level"]


@pytest.fixture
def fake_distributions(tmp_path, monkeypatch):
    """Two installed distributions: one plugin that works, one that fails to import."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "good_irconv_plugin.py").write_text(
        textwrap.dedent("""
        from irconv.plugins import Extractor, hookimpl

        @hookimpl
        def extract_op():
            return [Extractor("toy", "Thing", lambda node, ctx: None)]
    """)
    )
    (site / "broken_irconv_plugin.py").write_text("import module_that_does_not_exist\n")
    for dist, module in (("irconv-good", "good_irconv_plugin"), ("irconv-broken", "broken_irconv_plugin")):
        info = site / f"{dist.replace('-', '_')}-1.2.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2\n")
        (info / "entry_points.txt").write_text(f"[irconv]\n{dist.split('-')[1]} = {module}\n")
    monkeypatch.syspath_prepend(str(site))
    yield
    for module in ("good_irconv_plugin", "broken_irconv_plugin"):
        sys.modules.pop(module, None)


def test_a_broken_plugin_is_reported_by_name_and_skipped(fake_distributions):
    host = PluginHost()
    infos = {p.name: p for p in host.plugins()}
    assert infos["broken"].status == "failed"
    assert "module_that_does_not_exist" in infos["broken"].error
    assert infos["broken"].distribution == "irconv-broken"
    assert infos["good"].status == "active" and infos["good"].counts["extractors"] == 1
    assert host.registry().find_extractor("toy", "", "Thing", 1) is not None


def test_strict_mode_makes_a_broken_plugin_fatal(fake_distributions):
    with pytest.raises(PluginError, match="broken.*irconv-broken.*failed to import"):
        PluginHost(strict=True)


def test_plugins_can_be_disabled_by_name_or_distribution(fake_distributions):
    for name in ("good", "irconv-good"):
        host = PluginHost(disabled=[name])
        infos = {p.name: p for p in host.plugins()}
        assert infos["good"].status == "disabled"
        assert host.registry().find_extractor("toy", "", "Thing", 1) is None


# ---------------------------------------------------------------- tables built on first use
class PerFramework:
    """Written for ``extract_op(framework)``: notes what it is asked for."""

    def __init__(self):
        self.asked = []

    @hookimpl
    def extract_op(self, framework):
        self.asked.append(framework)
        every = [Extractor("toy", "A", noop_extract), Extractor("other", "B", noop_extract)]
        return [e for e in every if framework in (None, e.framework)]


class Legacy:
    """Written before ``framework`` existed: names only ``ops``."""

    def __init__(self):
        self.calls = 0

    @hookimpl
    def extract_op(self, ops):
        self.calls += 1
        return [Extractor("toy", "C", noop_extract), Extractor("other", "D", noop_extract)]


def test_extractors_are_asked_for_per_framework_and_old_hooks_serve_every_framework(plugin_host, register_plugin):
    new, old = register_plugin(PerFramework(), "new"), register_plugin(Legacy(), "old")
    registry = plugin_host.registry()
    assert new.asked == [] and old.calls == 0  # nothing until a table is used
    assert registry.find_extractor("toy", "", "A", 1) is not None
    assert registry.find_extractor("toy", "", "C", 1) is not None
    assert registry.find_extractor("toy", "", "B", 1) is None  # "other" records stay out of "toy"
    assert new.asked == ["toy"] and old.calls == 1
    assert registry.find_extractor("other", "", "D", 1) is not None  # the old hook's records, kept
    assert new.asked == ["toy", "other"] and old.calls == 1
    listed = [(p.item.framework, p.item.op, p.plugin.name) for p in registry.all_extractors()]
    assert listed == [("other", "B", "new"), ("other", "D", "old"), ("toy", "A", "new"), ("toy", "C", "old")]
    assert new.asked == ["toy", "other", None] and old.calls == 1
    assert {p.name: p.counts for p in plugin_host.plugins()} == {"new": {"extractors": 2}, "old": {"extractors": 2}}


def test_every_framework_at_once_for_listings(plugin_host, register_plugin):
    new, old = register_plugin(PerFramework(), "new"), register_plugin(Legacy(), "old")
    assert len(plugin_host.registry().all_extractors()) == 4
    assert new.asked == [None] and old.calls == 1
    assert plugin_host.registry().find_extractor("other", "", "B", 1) is not None
    assert new.asked == [None]  # every framework is in: not asked again


def test_a_hook_runs_when_its_table_is_first_used(plugin_host, register_plugin):
    calls = []

    class Everything:
        def _note(self, hook):
            calls.append(hook)
            return []

        @hookimpl
        def declare_options(self):
            return self._note("declare_options")

        @hookimpl
        def load_model(self):
            return self._note("load_model")

        @hookimpl
        def middle_transform(self):
            return self._note("middle_transform")

        @hookimpl
        def emit(self):
            return self._note("emit")

        @hookimpl
        def verify_model(self):
            return self._note("verify_model")

        @hookimpl
        def render_graph(self):
            return self._note("render_graph")

    register_plugin(Everything())
    registry = plugin_host.registry()
    assert calls == ["declare_options"]  # the command line needs the options
    assert registry.loaders == [] and registry.plan(Phase.MIDDLE) == [] and registry.emitters == {}
    assert registry.loaders == []
    assert calls == ["declare_options", "load_model", "middle_transform", "emit"]  # what a conversion uses
    plugin_host.plugins()  # every hook, once
    assert calls[4:] == ["verify_model", "render_graph"]


def test_a_hook_failing_late_drops_its_plugin_from_tables_built_before(plugin_host, register_plugin):
    class FailsLate:
        @hookimpl
        def declare_options(self):
            return [Option("late.level", int, default=1)]

        @hookimpl
        def load_model(self):
            return [Loader("toy", lambda p, o: None)]

        @hookimpl
        def middle_transform(self):
            return [make_transform("fuse.late")]

        @hookimpl
        def extract_op(self, framework):
            raise RuntimeError("its extractor module is broken")

    register_plugin(FailsLate(), "late", "irconv-late")
    registry = plugin_host.registry()
    assert registry.frameworks() == ["toy"] and plan_ids(plugin_host) == ["fuse.late"]
    assert registry.find_extractor("toy", "", "Thing", 1) is None
    (info,) = plugin_host.plugins(complete=False)
    assert info.status == "failed" and "hook extract_op failed: RuntimeError" in info.error
    assert registry.loaders == [] and plan_ids(plugin_host) == [] and registry.options.names() == []
    assert info.counts == {}


def test_strict_hosts_call_every_hook_at_once():
    class RendersBadly:
        @hookimpl
        def render_graph(self):
            raise RuntimeError("no display")

    strict = PluginHost(autoload=False, strict=True)
    strict.register(RendersBadly(), "bad", distribution="irconv-bad")
    with pytest.raises(PluginError, match="plugin 'bad' \\(irconv-bad\\): hook render_graph failed"):
        strict.registry()
