"""``irconv convert --verify`` in the core: comparisons, seeded inputs, what to install, and
the whole flow with a toy verifier (the IR run is replaced: the toy emitter writes no IR)."""

import numpy as np
import pytest
from core_toy_plugin import ToyPlugin
from irconv.cli import convert_cmd
from irconv.cli import verify as verify_mod
from irconv.cli.main import main
from irconv.cli.verify import compare, missing_requirements, random_inputs, read_inputs
from irconv.contract.records import Verifier
from irconv.errors import UserError
from irconv.ops import Parameter, Result
from irconv.plugins import PluginHost, hookimpl
from irconv.types import ElementType
from toy_cli import use_toy_host


def relu_reference(path, inputs, options):
    return {"y": np.maximum(inputs["x"], 0)}


class ToyVerifier:
    requires: tuple = ()

    @hookimpl
    def verify_model(self):
        return [Verifier("toy", relu_reference, requires=self.requires, install="toy-runtime")]


@pytest.fixture
def toy_cli(monkeypatch):
    """The CLI's plugin host: the toy plugin and this file's own."""
    use_toy_host(monkeypatch, (ToyVerifier(), "toyv"))
    monkeypatch.setattr(verify_mod.importlib.util, "find_spec", lambda name: object())  # "openvino is here"


def toy_model(tmp_path):
    path = tmp_path / "m.toy"
    path.write_text("input x 2,3\nop r MyRelu x\noutput y r\n")
    return path


def test_compare_measures_absolute_and_relative_error():
    ref = np.array([1.0, -4.0, 2.0], np.float32)
    same = compare("y", ref.copy(), ref, 1e-3)
    assert same.ok and same.max_abs == 0.0 and same.max_rel == 0.0
    off = compare("y", ref + np.array([0, 0.4, 0], np.float32), ref, 1e-3)
    assert not off.ok and off.max_abs == pytest.approx(0.4) and off.max_rel == pytest.approx(0.1)
    assert compare("y", ref + 0.001, ref, 1e-3).ok  # within 1e-3 x max(|ref|)=4


def test_compare_handles_nan_ints_and_shapes():
    nan = np.array([np.nan, 1.0])
    assert compare("y", nan.copy(), nan, 1e-3).ok
    assert not compare("y", np.array([1.0, 1.0]), nan, 1e-3).ok
    assert not compare("i", np.array([1, 2]), np.array([1, 3]), 0.5).ok  # integers must match exactly
    assert compare("r", np.zeros((1, 6)), np.zeros((2, 3)), 1e-3).ok  # same data, other shape
    assert not compare("r", np.zeros(5), np.zeros(6), 1e-3).ok


def test_random_inputs_are_seeded_and_follow_the_graph():
    from irconv.graph import Graph

    graph = Graph("g", "toy")
    x = graph.add_node(Parameter((1, None, 3), ElementType.f32), "x")
    x.out_port(0).data.set_shape((1, None, 3))
    x.out_port(0).data.set_type(ElementType.f32)
    x.out_port(0).data.add_name("x")
    i = graph.add_node(Parameter((4,), ElementType.i64), "ids")
    i.out_port(0).data.set_shape((4,))
    i.out_port(0).data.set_type(ElementType.i64)
    graph.add_node(Result(), "out", [x.out_port(0)])
    first, again, other = random_inputs(graph, 0), random_inputs(graph, 0), random_inputs(graph, 1)
    assert first["x"].shape == (1, 1, 3) and first["x"].dtype == np.float32
    assert first["ids"].dtype == np.int64 and first["ids"].min() >= 0
    np.testing.assert_array_equal(first["x"], again["x"])
    assert not np.array_equal(first["x"], other["x"])


def test_read_inputs_from_npz(tmp_path):
    np.savez(tmp_path / "in.npz", x=np.ones((2, 3), np.float32))
    assert read_inputs(tmp_path / "in.npz")["x"].shape == (2, 3)
    (tmp_path / "bad.npz").write_text("nope")
    with pytest.raises(UserError, match="not a .npz file of arrays"):
        read_inputs(tmp_path / "bad.npz")


def test_missing_runtime_says_what_to_install(plugin_host, register_plugin, monkeypatch):
    assert "no installed plugin can run toy models" in missing_requirements(plugin_host.registry(), "toy")

    class Needs(ToyVerifier):
        requires = ("irconv_toy_runtime_not_installed",)

    register_plugin(Needs(), "toyv", "irconv-toyv")
    message = missing_requirements(plugin_host.registry(), "toy")
    assert "irconv_toy_runtime_not_installed" in message and "pip install toy-runtime" in message


def test_openvino_missing_is_named(plugin_host, register_plugin, monkeypatch):
    register_plugin(ToyVerifier(), "toyv", "irconv-toyv")
    monkeypatch.setattr(verify_mod.importlib.util, "find_spec", lambda name: None)
    assert missing_requirements(plugin_host.registry(), "toy").endswith("pip install openvino")


def test_convert_verify_passes_when_outputs_match(tmp_path, toy_cli, monkeypatch, capsys):
    def fake_run_ir(xml, inputs, registry):
        return [({"y"}, np.maximum(inputs["x"], 0))]

    monkeypatch.setattr(verify_mod, "run_ir", fake_run_ir)
    code = main(["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "--verify"])
    out = capsys.readouterr().out
    assert code == 0
    assert "verified 1 output(s) against toy" in out and " ok" in out


def test_convert_verify_fails_beyond_the_tolerance(tmp_path, toy_cli, monkeypatch, capsys):
    def broken_run_ir(xml, inputs, registry):
        return [({"y"}, np.maximum(inputs["x"], 0) + 0.5)]

    monkeypatch.setattr(verify_mod, "run_ir", broken_run_ir)
    code = main(["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "--verify"])
    captured = capsys.readouterr()
    assert code == 4
    assert "FAIL" in captured.out and "verification failed: 1 of 1 output(s)" in captured.err
    # a loose tolerance accepts it
    code = main(
        ["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "--verify", "--verify-tolerance", "1"]
    )
    assert code == 0


def test_convert_verify_names_the_runtime_refusing_the_ir(tmp_path, toy_cli, monkeypatch, capsys):
    def refusing_run_ir(xml, inputs, registry):  # OpenVINO's own text for a form its CPU plugin lacks
        raise RuntimeError(
            "Exception from src/inference/src/cpp/core.cpp:117:\nException from src/inference/src/dev/plugin.cpp:54:\n"
            "Exception from src/plugins/intel_cpu/src/shape_inference/custom/reshape.cpp:199:\n"
            "[cpu]reshape: Squeeze is not implemented\n\n"
        )

    monkeypatch.setattr(verify_mod, "run_ir", refusing_run_ir)
    out = tmp_path / "o.xml"
    code = main(["convert", str(toy_model(tmp_path)), "-o", str(out), "--verify"])
    err = capsys.readouterr().err
    assert code == 4
    assert err.count("\n") == 1 and "internal error" not in err
    assert f"OpenVINO could not compile or run the IR {out}: [cpu]reshape: Squeeze is not implemented." in err


def test_convert_verify_uses_given_inputs(tmp_path, toy_cli, monkeypatch, capsys):
    seen = {}

    def fake_run_ir(xml, inputs, registry):
        seen.update(inputs)
        return [({"y"}, np.maximum(inputs["x"], 0))]

    monkeypatch.setattr(verify_mod, "run_ir", fake_run_ir)
    np.savez(tmp_path / "in.npz", x=np.full((2, 3), -2.0, np.float32))
    args = ["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "--verify"]
    assert main([*args, "--verify-inputs", str(tmp_path / "in.npz")]) == 0
    assert (seen["x"] == -2.0).all()


def test_convert_verify_without_a_verifier_fails_before_converting(tmp_path, monkeypatch, capsys):
    class OnlyToy(PluginHost):
        def __init__(self, **kwargs):
            super().__init__(autoload=False, **kwargs)
            self.register(ToyPlugin(), "toy", distribution="irconv-toy", version="9.9")

    monkeypatch.setattr(convert_cmd, "PluginHost", OnlyToy)
    code = main(["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "--verify"])
    assert code == 1
    assert "no installed plugin can run toy models" in capsys.readouterr().err
    assert not (tmp_path / "o.xml").exists()


def test_convert_verify_seed_changes_the_random_inputs(tmp_path, toy_cli, monkeypatch, capsys):
    seen = []

    def fake_run_ir(xml, inputs, registry):
        seen.append(inputs["x"].copy())
        return [({"y"}, np.maximum(inputs["x"], 0))]

    monkeypatch.setattr(verify_mod, "run_ir", fake_run_ir)
    args = ["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "--verify", "-q"]
    for seed in ("0", "0", "7"):
        assert main([*args, "--verify-seed", seed]) == 0
    assert np.array_equal(seen[0], seen[1]) and not np.array_equal(seen[0], seen[2])
    assert seen[0].shape == (2, 3) and seen[0].dtype == np.float32


def test_verify_needs_the_ir_format(tmp_path, toy_cli, capsys):
    code = main(["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "--verify", "--format", "other"])
    assert code == 2 and "needs --format ir11" in capsys.readouterr().err
