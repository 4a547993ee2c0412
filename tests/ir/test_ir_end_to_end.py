"""IR in, IR out through the whole pipeline with every installed plugin (CLI and Python API)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import irconv.api as api
import numpy as np
import pytest
from irconv.testing.runtime import run_ir

rng = np.random.default_rng(21)


def openvino_model(path: Path) -> Path:
    """A small CNN written by OpenVINO itself (fp16-compressed, as ovc would)."""
    import openvino as ov
    from openvino import opset13 as ops

    x = ops.parameter([1, 3, 16, 16], np.float32, name="image")
    w = ops.constant(rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.2)
    h = ops.relu(
        ops.add(
            ops.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1]), ops.constant(np.full((1, 8, 1, 1), 0.1, np.float32))
        )
    )
    h = ops.max_pool(h, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit", "i64").output(0)
    flat = ops.reshape(h, ops.constant(np.array([1, -1], np.int64)), False)
    fc = ops.matmul(flat, ops.constant(rng.standard_normal((8 * 8 * 8, 10)).astype(np.float32) * 0.05), False, False)
    out = ops.softmax(fc, -1)
    out.output(0).set_names({"scores"})
    xml = path / "source.xml"
    ov.save_model(ov.Model([out], [x], "small cnn"), str(xml), compress_to_fp16=True)
    return xml


@pytest.fixture
def image() -> np.ndarray:
    return rng.standard_normal((1, 3, 16, 16)).astype(np.float32)


def test_python_api_ir_to_ir(tmp_path, image):
    source = openvino_model(tmp_path)
    graph = api.convert_model(source)
    written = api.save_model(graph, tmp_path / "out" / "model.xml")
    assert sorted(p.name for p in written) == ["model.bin", "model.xml"]
    expected = run_ir(source, {"image": image})["scores"]
    np.testing.assert_allclose(
        run_ir(written[0] if written[0].suffix == ".xml" else written[1], {"image": image})["scores"],
        expected,
        rtol=1e-4,
        atol=1e-6,
    )


def test_cli_ir_to_ir_twice_gives_the_same_files(tmp_path, image):
    source = openvino_model(tmp_path)
    outputs = []
    for name in ("a", "b"):
        out = tmp_path / name / "model.xml"
        result = subprocess.run(
            [sys.executable, "-m", "irconv", "convert", str(source), "-o", str(out)], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
        outputs.append((out.read_bytes(), out.with_suffix(".bin").read_bytes()))
    assert outputs[0] == outputs[1]
    expected = run_ir(source, {"image": image})["scores"]
    np.testing.assert_allclose(
        run_ir(tmp_path / "a" / "model.xml", {"image": image})["scores"], expected, rtol=1e-4, atol=1e-6
    )


def test_cli_refuses_to_overwrite_its_input(tmp_path):
    source = openvino_model(tmp_path)
    before = source.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "irconv", "convert", str(source), "-o", str(source)], capture_output=True, text=True
    )
    assert result.returncode != 0 and "refusing to overwrite" in result.stderr
    assert source.read_bytes() == before
