"""``irconv new-plugin``: the generated distribution installs, its own tests pass as generated,
and it converts a model that uses its op, whose IR OpenVINO runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from irconv.cli.main import main
from irconv.runtime import compile_for_comparison

pytest.importorskip("setuptools")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The plugin ``scaled`` generated and installed into a folder of its own (PYTHONPATH)."""
    root = tmp_path_factory.mktemp("scaffold")
    assert main(["new-plugin", "scaled", "-o", str(root / "irconv-scaled")]) == 0
    site = root / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(site), str(root / "irconv-scaled")],
        check=True, capture_output=True, text=True,
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
           "IRCONV_CACHE_DIR": str(root / "cache")}
    return root, env


def test_the_generated_tests_pass_as_generated(installed):
    root, env = installed
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "tests"],
        cwd=root / "irconv-scaled", env=env, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 passed" in done.stdout


def test_the_generated_plugin_converts_its_op_and_openvino_runs_the_ir(installed, tmp_path):
    ov = pytest.importorskip("openvino")
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("irconv_onnx")
    from onnx import TensorProto, helper

    root, env = installed
    graph = helper.make_graph(
        [helper.make_node("ScaleShift", ["x"], ["y"], domain="com.scaled", scale=2.5, shift=-1.0)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    model = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("com.scaled", 1)]), model)
    xml = tmp_path / "m.xml"
    done = subprocess.run([sys.executable, "-m", "irconv", "convert", str(model), "-o", str(xml)],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = compile_for_comparison(xml)(x).values()
    np.testing.assert_allclose(y, x * 2.5 - 1.0, rtol=1e-3)


def test_a_bad_name_or_an_existing_folder_is_one_error(tmp_path, capsys):
    assert main(["new-plugin", "My-Ops", "-o", str(tmp_path / "a")]) == 2  # a bad value: usage error
    assert "use lower case letters" in capsys.readouterr().err
    (tmp_path / "b").mkdir()
    assert main(["new-plugin", "ops", "-o", str(tmp_path / "b")]) == 1
    assert "exists already" in capsys.readouterr().err
