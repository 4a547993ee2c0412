"""``irconv convert --verify`` per front end, against the framework's own runtime: it passes
on a faithful IR and fails (exit 4) when a weight of the emitted IR is corrupted before
verification."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from ir_damage import corrupt_largest_const
from irconv.cli.main import main

pytest.importorskip("openvino")

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


@pytest.fixture
def corrupt_after_save(monkeypatch):
    """Make ``irconv convert`` damage the IR it just wrote, as a broken emitter would."""
    import irconv.pipeline.run as run

    original = run.save
    damaged: list[str] = []

    def save_then_corrupt(graph, output, *args, **kwargs):
        written = original(graph, output, *args, **kwargs)
        damaged.append(corrupt_largest_const(Path(output)))
        return written

    monkeypatch.setattr(run, "save", save_then_corrupt)
    return damaged


def check(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(["convert", *args, "--verify", "-q"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------ ONNX (onnxruntime)
@pytest.fixture
def onnx_model(tmp_path: Path) -> Path:
    pytest.importorskip("onnxruntime")
    from make_zoo import conv_net

    path = tmp_path / "net.onnx"
    conv_net(path, seed=3, blocks=2)
    return path


def test_onnx_verify_passes(onnx_model, tmp_path, capsys):
    code, out, err = check([str(onnx_model), "-o", str(tmp_path / "ir" / "net.xml")], capsys)
    assert code == 0, err
    assert "logits" in out and "verified 1 output(s) against onnx" in out


def test_onnx_verify_fails_on_a_broken_ir(onnx_model, tmp_path, capsys, corrupt_after_save):
    code, out, err = check([str(onnx_model), "-o", str(tmp_path / "ir" / "net.xml")], capsys)
    assert corrupt_after_save, "the IR was not damaged"
    assert code == 4
    assert "FAIL" in out and "verification failed" in err


def test_onnx_verify_with_given_inputs_and_tolerance(onnx_model, tmp_path, capsys):
    np.savez(tmp_path / "in.npz", data=np.zeros((1, 3, 32, 32), np.float32))
    args = [str(onnx_model), "-o", str(tmp_path / "net.xml"), "--verify-inputs", str(tmp_path / "in.npz")]
    code, out, _ = check([*args, "--verify-tolerance", "1e-4", "--no-compress-to-fp16"], capsys)
    assert code == 0 and "tol 0.0001" in out


# ------------------------------------------------------------------ TensorFlow
@pytest.fixture(scope="module")
def frozen_graph(tmp_path_factory) -> Path:
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    rng = np.random.default_rng(5)
    w = tf.constant(rng.standard_normal((3, 3, 3, 8)).astype(np.float32))
    d = tf.constant(rng.standard_normal((8, 4)).astype(np.float32))

    def net(x):
        y = tf.nn.relu(tf.nn.conv2d(x, w, strides=1, padding="SAME"))
        return tf.matmul(tf.reduce_mean(y, axis=[1, 2]), d)

    spec = tf.TensorSpec((1, 8, 8, 3), tf.float32, name="image")
    frozen = convert_variables_to_constants_v2(tf.function(net).get_concrete_function(spec))
    path = tmp_path_factory.mktemp("tf") / "net.pb"
    path.write_bytes(frozen.graph.as_graph_def().SerializeToString())
    return path


def test_tf_verify_passes(frozen_graph, tmp_path, capsys):
    code, out, err = check([str(frozen_graph), "-o", str(tmp_path / "net.xml")], capsys)
    assert code == 0, err
    assert "verified 1 output(s) against tf" in out


def test_tf_verify_fails_on_a_broken_ir(frozen_graph, tmp_path, capsys, corrupt_after_save):
    code, out, err = check([str(frozen_graph), "-o", str(tmp_path / "net.xml")], capsys)
    assert corrupt_after_save and code == 4
    assert "FAIL" in out


# ------------------------------------------------------------------ Caffe (OpenCV)
TINY_CAFFE = """
name: "tiny"
input: "data"
input_shape { dim: 1 dim: 3 dim: 12 dim: 12 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
        convolution_param { num_output: 6 kernel_size: 3 pad: 1 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
        pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "fc" type: "InnerProduct" bottom: "pool1" top: "fc" inner_product_param { num_output: 5 } }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
"""


@pytest.fixture
def caffe_model(tmp_path: Path) -> tuple[Path, Path]:
    cv2 = pytest.importorskip("cv2")
    if not hasattr(cv2.dnn, "readNetFromCaffe"):
        pytest.skip("OpenCV 5 has no Caffe reader")
    from irconv_caffe.testing import write_random_caffemodel

    proto = tmp_path / "tiny.prototxt"
    proto.write_text(TINY_CAFFE)
    weights = tmp_path / "tiny.caffemodel"
    write_random_caffemodel(proto, weights, seed=7)
    return proto, weights


def test_caffe_verify_passes(caffe_model, tmp_path, capsys):
    proto, weights = caffe_model
    code, out, err = check([str(proto), "--weights", str(weights), "-o", str(tmp_path / "ir.xml")], capsys)
    assert code == 0, err
    assert "prob" in out and "verified 1 output(s) against caffe" in out


def test_caffe_verify_fails_on_a_broken_ir(caffe_model, tmp_path, capsys, corrupt_after_save):
    proto, weights = caffe_model
    code, out, err = check([str(proto), "--weights", str(weights), "-o", str(tmp_path / "ir.xml")], capsys)
    assert corrupt_after_save and code == 4
    assert "FAIL" in out


# ------------------------------------------------------------------ runtime missing
def test_missing_runtime_is_named_before_converting(onnx_model, tmp_path, capsys, monkeypatch):
    from irconv.contract.records import Verifier

    monkeypatch.setattr(Verifier, "missing", lambda self: ["onnxruntime"])
    code = main(["convert", str(onnx_model), "-o", str(tmp_path / "net.xml"), "--verify"])
    err = capsys.readouterr().err
    assert code == 1 and "pip install onnxruntime" in err
    assert not (tmp_path / "net.xml").exists()
