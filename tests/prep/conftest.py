"""Helpers for the model-preparation end-to-end tests: convert through the CLI, run on OpenVINO."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def convert(model: Path, out: Path, *args: str) -> int:
    """``irconv convert model -o out --no-compress-to-fp16 args...``; the exit code."""
    from irconv.cli.main import main

    return main(["convert", str(model), "-o", str(out), "--no-compress-to-fp16", *args])


def layer_types(xml: Path) -> list[str]:
    import xml.etree.ElementTree as ET

    return sorted(layer.get("type", "") for layer in ET.parse(xml).getroot().iter("layer"))


def run(xml: Path, feed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from irconv.testing.runtime import run_ir

    return run_ir(xml, feed)


def rgb_image(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Pixel values 0..255, like a decoded image."""
    return np.random.default_rng(seed).uniform(0, 255, shape).astype(np.float32)


@pytest.fixture
def caffe_net(tmp_path: Path) -> Callable[[str, tuple[int, ...]], tuple[Path, Path]]:
    """``(prototxt, caffemodel)`` with seeded random weights for a network body on input "data"."""
    from irconv_caffe.testing import write_random_caffemodel

    def make(body: str, shape: tuple[int, ...]) -> tuple[Path, Path]:
        proto = tmp_path / "net.prototxt"
        dims = " ".join(f"dim: {d}" for d in shape)
        proto.write_text(f'name: "net"\ninput: "data"\ninput_shape {{ {dims} }}\n{body}')
        weights = tmp_path / "net.caffemodel"
        write_random_caffemodel(proto, weights, seed=7)
        return proto, weights

    return make


def opencv_forward(proto: Path, weights: Path, x: np.ndarray) -> np.ndarray:
    cv2 = pytest.importorskip("cv2")
    net = cv2.dnn.readNetFromCaffe(str(proto), str(weights))
    net.setInput(np.ascontiguousarray(x, dtype=np.float32), "data")
    return np.asarray(net.forward())


def onnx_model(path: Path, nodes: list[Any], inputs: list[Any], outputs: list[Any], initializers: list[Any]) -> Path:
    import onnx
    from onnx import helper

    graph = helper.make_graph(nodes, "prep", inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def onnxruntime_run(path: Path, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return [np.asarray(v) for v in session.run(None, feed)]


def freeze_tf(fn: Callable[..., Any], specs: list[tuple[str, tuple[int, ...], Any]], path: Path) -> Any:
    """Trace ``fn`` over named inputs and write its frozen GraphDef; returns the frozen function."""
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    signature = [tf.TensorSpec(shape, dtype, name=name) for name, shape, dtype in specs]
    frozen = convert_variables_to_constants_v2(tf.function(fn).get_concrete_function(*signature))
    path.write_bytes(frozen.graph.as_graph_def().SerializeToString())
    return frozen


@pytest.fixture
def kit() -> Any:
    """These helpers, for the test modules (conftest files are not importable by name)."""
    import sys

    return sys.modules[__name__]
