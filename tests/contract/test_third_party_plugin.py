"""The extension contract, from outside: a third-party plugin installed as a real distribution.

``third_party/`` holds two packages as someone would publish them: ``irconv-testplug`` adds an
elementwise op with traits, its ONNX extractor, a typed option and a fusing pattern;
``irconv-broken`` has a hook that fails. Both are installed into a temporary site directory
with their ``.dist-info`` (metadata and entry points), exactly what pip leaves behind.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]


def _install(site: Path, package: str, distribution: str, entry_point: str) -> None:
    shutil.copytree(HERE / "third_party" / package, site / package)
    info = site / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[irconv]\n{entry_point} = {package}.plugin\n")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    _install(site, "irconv_testplug", "irconv-testplug", "testplug")
    _install(site, "irconv_broken", "irconv-broken", "broken")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    return site


def _sharpen_model(path: Path) -> Path:
    """x[1,2,3,4] -> Transpose(NHWC) -> Sharpen -> Sharpen -> Transpose(back to NCHW) -> y."""
    from onnx import TensorProto, helper, save_model

    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]),
        helper.make_node("Sharpen", ["t"], ["s1"], domain="com.example.test"),
        helper.make_node("Sharpen", ["s1"], ["s2"], domain="com.example.test"),
        helper.make_node("Transpose", ["s2"], ["y"], perm=[0, 3, 1, 2]),
    ]
    graph = helper.make_graph(
        nodes,
        "sharpen",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 4])],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.example.test", 1)]
    save_model(helper.make_model(graph, opset_imports=opsets), path)
    return path


def test_plugins_are_listed_and_the_broken_one_is_reported_by_name(site: Path) -> None:
    from irconv import PluginHost

    infos = {p.name: p for p in PluginHost().plugins()}
    assert infos["broken"].status == "failed"
    assert infos["broken"].distribution == "irconv-broken"
    assert "irconv_dependency_that_is_not_installed" in infos["broken"].error
    testplug = infos["testplug"]
    assert (testplug.status, testplug.distribution) == ("active", "irconv-testplug")
    assert testplug.counts == {"ops": 1, "options": 1, "extractors": 1, "transforms": 1}


def test_the_op_sinks_transposes_fuses_and_reads_its_option(site: Path, tmp_path: Path) -> None:
    import irconv

    model = _sharpen_model(tmp_path / "sharpen.onnx")
    graph = irconv.convert_model(model)
    assert graph.by_type("Transpose") == []  # the trait let both transposes meet and cancel
    (sharpen,) = graph.by_type("Sharpen")  # the fusing pattern merged the pair
    assert sharpen.op.factor == 4.0
    assert sharpen.in_port(0).get_source().node.type == "Parameter"

    graph = irconv.convert_model(model, testplug_factor="3")  # the option's Python keyword
    assert graph.by_type("Sharpen")[0].op.factor == 9.0


def _cli(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "irconv", *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def test_cli_lists_the_plugins_the_op_and_the_option(site: Path, tmp_path: Path) -> None:
    listing = _cli(site, "plugins")
    assert listing.returncode == 0
    (broken,) = [line for line in listing.stdout.splitlines() if line.startswith("broken ")]
    assert "failed: hook middle_transform failed: ModuleNotFoundError" in broken

    ops = _cli(site, "ops", "--opset")
    (row,) = [line for line in ops.stdout.splitlines() if line.startswith("Sharpen ")]
    assert "testplug_ops" in row and "irconv-testplug 1.0" in row and "elementwise" in row

    help_text = _cli(site, "convert", "--help").stdout
    assert "options of irconv-testplug 1.0" in help_text and "--testplug-factor" in help_text

    model = _sharpen_model(tmp_path / "sharpen.onnx")
    bad = _cli(site, "convert", str(model), "-o", str(tmp_path / "out.xml"), "--option", "testplug.nope=1")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert re.search(r"unknown --option 'testplug.nope'.*testplug.factor", bad.stderr)
    assert not (tmp_path / "out.xml").exists()

    wrong_type = _cli(site, "convert", str(model), "-o", str(tmp_path / "out.xml"), "--testplug-factor", "much")
    assert wrong_type.returncode == 2 and "--testplug-factor (testplug.factor): bad value 'much'" in wrong_type.stderr


def test_the_fusing_pattern_is_short() -> None:
    source = (HERE / "third_party" / "irconv_testplug" / "fuse.py").read_text()
    assert len(source.splitlines()) < 30


PLUGIN_SOURCES = sorted(
    path for root in ("plugins", "plugins-builtin") for path in (REPO / root).glob("*/src/**/*.py")
)
FORBIDDEN = re.compile(r"^\s*(from|import)\s+(irconv\.pipeline|networkx)\b", re.MULTILINE)


@pytest.mark.parametrize("path", PLUGIN_SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_plugins_use_only_the_public_api(path: Path) -> None:
    found = FORBIDDEN.findall(path.read_text())
    assert not found, f"{path.relative_to(REPO)} imports core internals or networkx: {found}"

