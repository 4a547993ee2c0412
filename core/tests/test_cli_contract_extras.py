"""The hooks added for issue 17: verify_model, render_graph, declare_hints (records,
conflicts, isolation) and the install-hint index used in error messages."""

import pytest
from core_toy_plugin import ToyPlugin
from irconv.contract.records import BUILTIN_HINTS, InstallHint, Renderer, Verifier
from irconv.errors import ModelFileError, PluginError, UnsupportedOpsError
from irconv.pipeline import ConversionOptions, convert
from irconv.pipeline.run import pick_loader
from irconv.plugins import hookimpl


def _verifier(framework="toy", requires=()):
    return Verifier(framework, lambda path, inputs, options: {}, requires=requires, install="toy-runtime")


def test_records_are_validated():
    with pytest.raises(PluginError):
        Verifier("", lambda *a: {})
    with pytest.raises(PluginError):
        Renderer("", lambda doc, path: None)
    with pytest.raises(PluginError, match="framework, domain, op"):
        InstallHint("irconv-x", ops=(("onnx", "Foo"),))


def test_verifier_reports_missing_modules():
    assert _verifier(requires=("json",)).missing() == []
    assert _verifier(requires=("irconv_no_such_runtime",)).missing() == ["irconv_no_such_runtime"]


def test_new_hooks_are_collected_and_counted(plugin_host, register_plugin):
    class Extras:
        @hookimpl
        def verify_model(self):
            return [_verifier()]

        @hookimpl
        def render_graph(self):
            return [Renderer("txt", lambda doc, path: None)]

        @hookimpl
        def declare_hints(self):
            return [InstallHint("irconv-toy-extra", ops=(("toy", "", "Foo"),))]

    register_plugin(Extras(), "extras", "irconv-extras")
    registry = plugin_host.registry()
    assert registry.verifiers["toy"].plugin.name == "extras"
    assert "txt" in registry.renderers
    assert registry.distribution_for_op("toy", "", "Foo") == "irconv-toy-extra"
    (info,) = plugin_host.plugins()
    assert info.counts == {"verifiers": 1, "renderers": 1}
    assert info.hooks == ["declare_hints", "render_graph", "verify_model"]


def test_two_verifiers_for_one_framework_name_both_distributions(plugin_host, register_plugin):
    class A:
        @hookimpl
        def verify_model(self):
            return [_verifier()]

    register_plugin(A(), "a", "dist-a")
    register_plugin(A(), "b", "dist-b")
    with pytest.raises(PluginError, match="verifier for 'toy'.*dist-a.*dist-b"):
        plugin_host.registry().verifiers.get("toy")


def test_a_failing_new_hook_fails_only_its_plugin(plugin_host, register_plugin):
    class Raising:
        @hookimpl
        def render_graph(self):
            raise RuntimeError("no display")

    class WrongRecord:
        @hookimpl
        def declare_hints(self):
            return ["irconv-onnx"]

    register_plugin(Raising(), "raising", "irconv-raising")
    register_plugin(WrongRecord(), "wrong", "irconv-wrong")
    register_plugin(ToyPlugin(), "toy", "irconv-toy")
    infos = {p.name: p for p in plugin_host.plugins()}
    assert infos["raising"].status == "failed" and "render_graph failed: RuntimeError" in infos["raising"].error
    assert infos["wrong"].status == "failed" and "InstallHint records" in infos["wrong"].error
    assert infos["toy"].status == "active"
    assert plugin_host.registry().renderers == {}


def test_builtin_hints_cover_the_known_front_ends(plugin_host):
    registry = plugin_host.registry()
    assert registry.hints[: len(BUILTIN_HINTS)] == list(BUILTIN_HINTS)
    assert registry.framework_for_suffix(".ONNX") == ("onnx", "irconv-onnx")
    assert registry.framework_for_suffix(".caffemodel") == ("caffe", "irconv-caffe")
    assert registry.distribution_for_framework("tf") == "irconv-tf"
    assert registry.framework_for_suffix(".weird") is None


def test_no_loader_error_names_the_distribution_to_install(tmp_path, plugin_host):
    model = tmp_path / "net.onnx"
    model.write_bytes(b"\x08\x07")
    with pytest.raises(
        ModelFileError, match=r"looks like onnx format: install irconv-onnx \(pip install irconv-onnx\)"
    ):
        pick_loader(model, ConversionOptions(), plugin_host.registry())
    with pytest.raises(ModelFileError, match="install irconv-caffe"):
        pick_loader(model, ConversionOptions(framework="caffe"), plugin_host.registry())


def test_a_saved_model_folder_points_at_irconv_tf(tmp_path, plugin_host):
    (tmp_path / "saved_model.pb").write_bytes(b"")
    with pytest.raises(ModelFileError, match="install irconv-tf"):
        pick_loader(tmp_path, ConversionOptions(), plugin_host.registry())


def test_plugin_hints_extend_the_index(tmp_path, plugin_host, register_plugin):
    class Index:
        @hookimpl
        def declare_hints(self):
            return [InstallHint("irconv-mxnet", frameworks=("mxnet",), suffixes=(".params",))]

    register_plugin(Index(), "index", "irconv-index")
    model = tmp_path / "net.params"
    model.write_bytes(b"")
    with pytest.raises(ModelFileError, match="install irconv-mxnet"):
        pick_loader(model, ConversionOptions(), plugin_host.registry())


def test_unsupported_op_report_names_the_providing_distribution(tmp_path, plugin_host, register_plugin):
    class Index:
        @hookimpl
        def declare_hints(self):
            return [InstallHint("irconv-toy-contrib", ops=(("toy", "", "Foo"),))]

    register_plugin(ToyPlugin(), "toy", "irconv-toy")
    register_plugin(Index(), "index", "irconv-index")
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop a Foo x\nop b Bar a\noutput y b\n")
    with pytest.raises(UnsupportedOpsError) as info:
        convert(model, ConversionOptions(), plugin_host)
    message = str(info.value)
    assert "toy Foo x1: a" in message and "toy Bar" in message
    assert "Foo: provided by irconv-toy-contrib (pip install irconv-toy-contrib)" in message
    assert "Bar: provided" not in message
    assert info.value.exit_code == 5


def test_unsupported_op_report_without_hints_is_unchanged(tmp_path, plugin_host, register_plugin):
    register_plugin(ToyPlugin(), "toy", "irconv-toy")
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop a Foo x\noutput y a\n")
    with pytest.raises(UnsupportedOpsError) as info:
        convert(model, ConversionOptions(), plugin_host)
    assert "Known plugins" not in str(info.value)


def test_plugins_listing_without_loaders_names_the_front_ends(monkeypatch, capsys):
    from irconv.cli import listing
    from irconv.cli.main import main
    from irconv.plugins import PluginHost

    class Empty(PluginHost):
        def __init__(self, **kwargs):
            super().__init__(autoload=False, **kwargs)

    monkeypatch.setattr(listing, "PluginHost", Empty)
    assert main(["plugins"]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("No model loader")]
    assert line.startswith("No model loader is installed: pip install irconv-onnx, irconv-tf, irconv-caffe, irconv-mxnet")
