"""The runtime half as a C++ extension library, built against the installed OpenVINO.

plugins/example-swish/runtime_cpp/example_swish.cpp is compiled here (skipped without a
C++ compiler or OpenVINO's headers) and loaded with ``Core.add_extension(path)``; the IR
the converter wrote runs with it and matches the NumPy reference.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from irconv.runtime import compile_for_comparison

onnx = pytest.importorskip("onnx")
ov = pytest.importorskip("openvino")
pytest.importorskip("irconv_onnx")

from onnx import TensorProto, helper  # noqa: E402

SOURCE = Path(__file__).resolve().parents[2] / "plugins" / "example-swish" / "runtime_cpp" / "example_swish.cpp"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("g++") or shutil.which("c++")
    root = Path(ov.__file__).parent
    runtime = sorted((root / "libs").glob("libopenvino.so*"))
    if compiler is None or not (root / "include" / "openvino").is_dir() or not runtime:
        pytest.skip("needs a C++ compiler and OpenVINO's headers and libopenvino.so")
    out = tmp_path_factory.mktemp("cpp") / "libirconv_example_swish.so"
    command = [compiler, "-std=c++17", "-O2", "-shared", "-fPIC", f"-I{root / 'include'}", str(SOURCE), "-o", str(out)]
    built = subprocess.run([*command, str(runtime[0])], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    return out


def test_ir_runs_with_the_cpp_extension_library(library, kit, tmp_path):
    node = helper.make_node("Swish", ["x"], ["y"], "swish", domain="com.example", beta=0.6)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    onnx.save(model, tmp_path / "m.onnx")
    xml = kit.convert_and_save(tmp_path / "m.onnx", tmp_path / "ir" / "model.xml")

    core = ov.Core()
    core.add_extension(str(library))
    compiled = compile_for_comparison(xml, core=core)
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32) * 4
    got = np.asarray(compiled({"x": x})[compiled.outputs[0]])
    np.testing.assert_allclose(got, kit.swish(x, 0.6), rtol=1e-5, atol=1e-6)
