"""A plugin written from docs/plugin-guide.md alone, installed by pip, used from outside.

``outside_plugin/`` (distribution ``irconv-tempered``) is built and installed with pip into a
temporary directory, as a user would install it; its own tests run there, and a model using
its op converts through the command line into an IR that OpenVINO runs like NumPy.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
SOURCE = HERE / "outside_plugin"
#: What an outside plugin may import of irconv: the public vocabulary the guide teaches.
PUBLIC = {"irconv", "irconv.frontend", "irconv.testing", "irconv.testing.runtime", "irconv_opset", "irconv_opset.build"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install --target`` of a copy of the plugin (the build leaves nothing in the repo)."""
    work = tmp_path_factory.mktemp("outside")
    copy = shutil.copytree(SOURCE, work / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    target = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "--target", str(target), str(copy)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    return target


def _run(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
                          check=False)


def _model(path: Path) -> Path:
    """x[2,3,5] / 2 -> com.outside::TemperedSoftmax(axis=1, temperature=1.5) -> y."""
    from onnx import TensorProto, helper, numpy_helper, save_model

    nodes = [
        helper.make_node("Div", ["x", "two"], ["half"]),
        helper.make_node("TemperedSoftmax", ["half"], ["y"], domain="com.outside", axis=1, temperature=1.5),
    ]
    graph = helper.make_graph(
        nodes,
        "tempered",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 5])],
        initializer=[numpy_helper.from_array(np.asarray(2.0, np.float32), "two")],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.outside", 1)]
    save_model(helper.make_model(graph, opset_imports=opsets), path)
    return path


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def test_pip_installs_it_and_irconv_lists_it(site: Path) -> None:
    assert (site / "irconv_tempered" / "plugin.py").is_file()
    listing = _run(site, "-m", "irconv", "plugins")
    assert listing.returncode == 0, listing.stderr
    (row,) = [line.split() for line in listing.stdout.splitlines() if line.startswith("tempered ")]
    assert row[1:4] == ["irconv-tempered", "1.0.0", "active"], row


def test_its_own_tests_pass_where_it_is_installed(site: Path) -> None:
    tests = site.parent / "src" / "tests"
    result = _run(site, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", str(tests), cwd=site.parent)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "7 passed" in result.stdout


def test_a_model_converts_through_it_and_runs_in_openvino(site: Path, tmp_path: Path) -> None:
    from irconv.testing.runtime import run_ir

    model = _model(tmp_path / "tempered.onnx")
    xml = tmp_path / "ir" / "tempered.xml"
    converted = _run(site, "-m", "irconv", "convert", str(model), "-o", str(xml), "--tempered-log",
                     "--no-compress-to-fp16")
    assert converted.returncode == 0, converted.stderr
    x = np.random.default_rng(7).normal(size=(2, 3, 5)).astype(np.float32)
    (y,) = run_ir(xml, {"x": x}).values()
    np.testing.assert_allclose(y, _log_softmax(x / 2.0 / 1.5, axis=1), rtol=1e-5, atol=1e-5)
    assert 'type="LogSoftmax"' in xml.read_text()


def test_it_imports_only_the_public_vocabulary() -> None:
    imported: set[str] = set()
    for path in (SOURCE / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    ours = {name for name in imported if name.split(".")[0] in ("irconv", "irconv_opset")}
    assert ours <= PUBLIC, sorted(ours - PUBLIC)
