"""The README's example: convert the bundled model from the CLI and the Python API, run
the IR in OpenVINO and compare with onnxruntime on the same input."""

from pathlib import Path

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")
pytest.importorskip("irconv_onnx")

import irconv  # noqa: E402
from irconv.cli.main import main  # noqa: E402
from irconv.testing.runtime import run_ir  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tiny_cnn.onnx"


@pytest.fixture(scope="module")
def image_and_reference():
    image = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype(np.float32)
    session = ort.InferenceSession(str(EXAMPLE), providers=["CPUExecutionProvider"])
    return image, session.run(["probabilities"], {"image": image})[0]


def test_cli_converts_the_example_and_the_ir_matches_onnxruntime(tmp_path, image_and_reference, capsys):
    xml = tmp_path / "out" / "tiny_cnn.xml"
    assert main(["convert", str(EXAMPLE), "-o", str(xml), "--no-compress-to-fp16"]) == 0
    assert "converted" in capsys.readouterr().out
    image, reference = image_and_reference
    got = run_ir(xml, {"image": image})["probabilities"]
    np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-5)


def test_python_api_with_default_fp16_compression_stays_close(tmp_path, image_and_reference):
    graph = irconv.convert_model(EXAMPLE)
    written = irconv.save_model(graph, tmp_path / "m.xml")
    assert [p.suffix for p in written] == [".xml", ".bin"]
    image, reference = image_and_reference
    got = run_ir(tmp_path / "m.xml", {"image": image})["probabilities"]
    np.testing.assert_allclose(got, reference, rtol=1e-2, atol=2e-3)


def test_reshapeable_ir_accepts_another_batch(tmp_path, image_and_reference):
    graph = irconv.convert_model(EXAMPLE, inputs=["image[?,3,32,32]"])
    irconv.save_model(graph, tmp_path / "dyn.xml", compress_to_fp16=False)
    image, reference = image_and_reference
    batch = np.concatenate([image, image])
    got = run_ir(tmp_path / "dyn.xml", {"image": batch})["probabilities"]
    np.testing.assert_allclose(got, np.concatenate([reference, reference]), rtol=1e-4, atol=1e-5)
