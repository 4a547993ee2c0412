"""Helpers for the .keras tests: save a Keras model, convert the file with irconv, run the IR
on OpenVINO and compare with Keras' own predictions on the same inputs.

Keras is the reference (imported by the tests only, never by the conversion under test).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv.runtime import compile_for_comparison

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


@dataclass
class Converted:
    outputs: list[np.ndarray]
    expected: list[np.ndarray]
    ir: Any  # openvino.Model
    notes: list[str]

    def layer_types(self) -> list[str]:
        return [op.get_type_name() for op in self.ir.get_ordered_ops()]


def randomize_weights(model: Any, rng: np.random.Generator, *, batch_norm_only: bool = False) -> None:
    """Seeded random values for every variable (with ``batch_norm_only``, for the
    BatchNormalization layers only: a deep network keeps Keras' seeded initial weights, whose
    activations stay in range); BatchNormalization statistics and variances positive and
    away from the identity, so folding them is tested."""
    import keras

    for layer in _all_layers(model):
        weights = layer.get_weights()
        if not weights:
            continue
        if isinstance(layer, keras.layers.BatchNormalization):
            values = []
            for w, var in zip(weights, layer.weights, strict=True):
                name = var.path.rsplit("/", 1)[-1]
                low, high = (0.5, 1.5) if name in ("gamma", "moving_variance") else (-0.3, 0.3)
                values.append(rng.uniform(low, high, w.shape).astype(w.dtype))
            layer.set_weights(values)
        elif not batch_norm_only:
            layer.set_weights(
                [rng.uniform(-0.5, 0.5, w.shape).astype(w.dtype) if w.dtype.kind == "f" else w for w in weights]
            )


def _all_layers(model: Any) -> list[Any]:
    import keras

    found = []
    for layer in model.layers:
        found += _all_layers(layer) if isinstance(layer, keras.Model) else [layer]
    return found


def random_inputs(model: Any, rng: np.random.Generator, batch: int = 2) -> list[np.ndarray]:
    arrays = []
    for tensor in model.inputs:
        shape = [batch if d is None else d for d in tensor.shape]
        if "int" in str(tensor.dtype):
            arrays.append(rng.integers(0, 20, shape).astype(str(tensor.dtype)))
        else:
            arrays.append(rng.standard_normal(shape).astype(np.float32))
    return arrays


def convert_keras_file(
    path: Path, inputs: Sequence[np.ndarray], out_dir: Path, **options: Any
) -> tuple[list[np.ndarray], Any, list[str]]:
    """Convert ``path`` with irconv (graph contracts checked), run the IR on OpenVINO CPU."""
    import openvino as ov
    from irconv.api import save_model
    from irconv.contract.options import ConversionOptions
    from irconv.pipeline.run import ConversionReport, convert
    from irconv.plugins.manager import PluginHost

    host = PluginHost()
    report = ConversionReport()
    opts = ConversionOptions.from_kwargs(host.registry().options, validate=True, **options)
    graph = convert(path, opts, host, report)  # convert_model, with the report's notes
    xml = out_dir / "model.xml"
    save_model(graph, xml, host=host, compress_to_fp16=False)
    core = ov.Core()
    ir = core.read_model(str(xml))
    compiled = compile_for_comparison(ir, core=core)
    request = compiled.create_infer_request()
    request.infer({compiled.inputs[i]: v for i, v in enumerate(inputs)})
    return [np.array(request.get_tensor(port).data) for port in compiled.outputs], ir, report.notes


@pytest.fixture
def convert_file() -> Callable[..., tuple[list[np.ndarray], Any, list[str]]]:
    """``convert_file(path, inputs, out_dir, **options)`` -> (IR outputs, openvino.Model, notes)."""
    return convert_keras_file


@dataclass(frozen=True)
class Helpers:
    randomize_weights: Callable[..., None] = randomize_weights
    random_inputs: Callable[..., list[np.ndarray]] = random_inputs
    convert: Callable[..., tuple[list[np.ndarray], Any, list[str]]] = convert_keras_file


@pytest.fixture
def helpers() -> Helpers:
    """The helpers above, for tests that assemble their own checks."""
    return Helpers()


@pytest.fixture
def keras_check(tmp_path: Path) -> Callable[..., Converted]:
    """``keras_check(model, atol=...)``: random weights, save as .keras, convert, run,
    compare with ``model.predict`` on the same random inputs."""

    def check(
        model: Any,
        atol: float = 1e-4,
        rtol: float = 1e-4,
        seed: int = 0,
        randomize: bool = True,
        inputs: Sequence[np.ndarray] | None = None,
    ) -> Converted:
        rng = np.random.default_rng(seed)
        if randomize:
            randomize_weights(model, rng)
        path = tmp_path / "model.keras"
        model.save(path)
        feed = list(inputs) if inputs is not None else random_inputs(model, rng)
        expected = model.predict(feed if len(feed) > 1 else feed[0], verbose=0)
        expected = [np.asarray(e) for e in (expected if isinstance(expected, (list, tuple)) else [expected])]
        got, ir, notes = convert_keras_file(path, feed, tmp_path)
        assert not [n for n in notes if "read through TensorFlow" in n], notes
        assert len(got) == len(expected)
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            assert g.shape == e.shape, f"output {i}: shape {g.shape} != Keras' {e.shape}"
            np.testing.assert_allclose(g, e, atol=atol, rtol=rtol, err_msg=f"output {i}")
        return Converted(got, expected, ir, notes)

    return check


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slow cases run only when asked for (``-m slow``)."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords and "tests/keras_files/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(skip)
