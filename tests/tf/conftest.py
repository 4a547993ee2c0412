"""Shared helpers for the TensorFlow end-to-end tests: freeze, convert, run, compare.

TensorFlow is the reference; it is imported lazily (about 5 s) and only by these tests.
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
class Frozen:
    """A frozen tf.function: the GraphDef file, its input names, TF's own outputs."""

    path: Path
    input_names: list[str]
    inputs: list[np.ndarray]
    expected: list[np.ndarray]
    ops: set[str]


#: ``shapes=`` entry keeping an input's shape from the array fed to TensorFlow.
FED = "fed"


def freeze(
    fn: Callable[..., Any], inputs: Sequence[np.ndarray], path: Path, shapes: Sequence[Any] | None = None
) -> Frozen:
    """Trace ``fn`` over inputs named in0, in1, ..., freeze it and record TF's result.

    ``shapes`` gives each input's traced shape (``None``: unknown rank, ``[None, 3]``:
    dynamic dims, ``FED``: the fed array's shape); by default every shape is the fed one."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    names = [f"in{i}" for i in range(len(inputs))]
    traced = [x.shape if s == FED else s for x, s in zip(inputs, shapes or [FED] * len(inputs), strict=True)]
    specs = [tf.TensorSpec(s, tf.as_dtype(x.dtype), name=n) for x, s, n in zip(inputs, traced, names, strict=True)]
    concrete = tf.function(fn).get_concrete_function(*specs)
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    path.write_bytes(graph_def.SerializeToString())
    result = frozen(*[tf.constant(x) for x in inputs])
    expected = [np.asarray(t) for t in (result if isinstance(result, (list, tuple)) else [result])]
    ops = {n.op for n in graph_def.node}
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    return Frozen(path, names, list(inputs), expected, ops)


def save_module(
    fn: Callable[..., Any], variables: dict[str, np.ndarray], inputs: Sequence[np.ndarray], path: Path
) -> Frozen:
    """A SavedModel whose serving signature is ``fn(module, *inputs)``; ``module`` holds the variables."""
    import tensorflow as tf

    names = [f"in{i}" for i in range(len(inputs))]
    specs = [tf.TensorSpec(x.shape, tf.as_dtype(x.dtype), name=n) for x, n in zip(inputs, names, strict=True)]
    module = tf.Module()
    for key, value in variables.items():
        setattr(module, key, tf.Variable(value))
    serve = tf.function(lambda *xs: fn(module, *xs), input_signature=specs)
    tf.saved_model.save(module, str(path), signatures=serve)
    result = serve(*[tf.constant(x) for x in inputs])
    graph_def = serve.get_concrete_function().graph.as_graph_def()
    ops = {n.op for n in graph_def.node}
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    return Frozen(path, names, list(inputs), [np.asarray(result)], ops)


def convert_and_run(
    model: Path, feed: dict[str, np.ndarray] | list[np.ndarray], out_dir: Path, **options: Any
) -> list[np.ndarray]:
    """Convert with irconv, run the IR on OpenVINO CPU; outputs in the model's order."""
    return convert_and_run_ir(model, feed, out_dir, **options)[0]


def convert_and_run_ir(
    model: Path, feed: dict[str, np.ndarray] | list[np.ndarray], out_dir: Path, **options: Any
) -> tuple[list[np.ndarray], Any]:
    """As ``convert_and_run``, also returning the ``openvino.Model`` read from the IR
    (``options`` may include the core's ``inputs=["x[1,3]"]``)."""
    import openvino as ov
    from irconv.api import convert_model, save_model

    graph = convert_model(model, validate=True, **options)  # every transform's contract checked
    xml = out_dir / "model.xml"
    save_model(graph, xml, compress_to_fp16=False)
    core = ov.Core()
    ir = core.read_model(str(xml))
    compiled = compile_for_comparison(ir, core=core)
    if isinstance(feed, dict):
        by_port = {}
        for port in compiled.inputs:
            name = next(n for n in feed if n in port.get_names())
            by_port[port] = feed[name]
    else:
        by_port = {compiled.inputs[i]: v for i, v in enumerate(feed)}
    request = compiled.create_infer_request()
    request.infer(by_port)
    return [np.array(request.get_tensor(port).data) for port in compiled.outputs], ir


@pytest.fixture
def run_converted() -> Callable[..., tuple[list[np.ndarray], Any]]:
    """``run_converted(model, inputs, out_dir, **options)`` -> (outputs, openvino.Model)."""
    return convert_and_run_ir


def assert_same_as_tensorflow(
    got: Sequence[np.ndarray], expected: Sequence[np.ndarray], atol: float, rtol: float
) -> None:
    """Same number of outputs, and each with TF's element type and shape exactly, then values."""
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g.dtype == e.dtype, f"output {i}: element type {g.dtype} != TensorFlow's {e.dtype}"
        assert g.shape == e.shape, f"output {i}: shape {g.shape} != TensorFlow's {e.shape}"
        if e.dtype == np.bool_ or np.issubdtype(e.dtype, np.integer):
            np.testing.assert_array_equal(g, e, err_msg=f"output {i}")
        else:
            np.testing.assert_allclose(g, e, atol=atol, rtol=rtol, err_msg=f"output {i}")


@pytest.fixture
def tf_check(tmp_path: Path) -> Callable[..., Frozen]:
    """``tf_check(fn, inputs, op=..., atol=...)``: freeze, convert, run, compare with TensorFlow.

    Outputs must have TensorFlow's element types and shapes exactly, then its values.
    ``options`` are passed to ``convert_model``; ``shapes`` are the traced input shapes
    (see ``freeze``).
    """

    def check(
        fn: Callable[..., Any],
        inputs: Sequence[np.ndarray],
        op: str,
        atol: float = 1e-5,
        rtol: float = 1e-5,
        variables: dict[str, np.ndarray] | None = None,
        options: dict[str, Any] | None = None,
        shapes: Sequence[Any] | None = None,
    ) -> Frozen:
        if variables is None:
            frozen = freeze(fn, inputs, tmp_path / "model.pb", shapes)
        else:
            frozen = save_module(fn, variables, inputs, tmp_path / "saved_model")
        assert op in frozen.ops, f"the test graph does not contain {op}: {sorted(frozen.ops)}"
        feed = dict(zip(frozen.input_names, frozen.inputs, strict=True))
        got = convert_and_run(frozen.path, feed, tmp_path, **(options or {}))
        assert_same_as_tensorflow(got, frozen.expected, atol, rtol)
        return frozen

    return check


def randomize_batch_norms(model: Any, rng: np.random.Generator) -> None:
    """Random statistics and affine weights, drawn from ``rng``, for every Keras
    BatchNormalization, so folding them is tested on values other than the identity."""
    import tensorflow as tf

    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            gamma, beta, mean, var = layer.get_weights()
            layer.set_weights(
                [
                    rng.uniform(0.5, 1.5, gamma.shape).astype(np.float32),
                    rng.uniform(-0.2, 0.2, beta.shape).astype(np.float32),
                    rng.uniform(-0.2, 0.2, mean.shape).astype(np.float32),
                    rng.uniform(0.5, 1.5, var.shape).astype(np.float32),
                ]
            )


@dataclass
class RealModel:
    """A Keras application with seeded random weights, saved both ways, and TF's logits."""

    name: str
    frozen: Path
    saved_model: Path
    x: np.ndarray
    logits: np.ndarray


def build_application(name: str, out_dir: Path) -> RealModel:
    """weights=None, seeded random weights, randomised BatchNorm statistics, logits out."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    tf.keras.utils.set_random_seed(0)
    cls = {"ResNet50": tf.keras.applications.ResNet50, "MobileNetV2": tf.keras.applications.MobileNetV2}[name]
    model = cls(weights=None, classifier_activation=None, input_shape=(224, 224, 3))
    rng = np.random.default_rng(0)
    randomize_batch_norms(model, rng)
    spec = tf.TensorSpec([1, 224, 224, 3], tf.float32, name="input")
    frozen = convert_variables_to_constants_v2(
        tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    )
    pb = out_dir / f"{name}.pb"
    pb.write_bytes(frozen.graph.as_graph_def().SerializeToString())
    saved = out_dir / f"{name}_saved_model"
    tf.saved_model.save(model, str(saved))
    x = rng.random((1, 224, 224, 3), dtype=np.float32)
    logits = np.asarray(model(x, training=False))
    return RealModel(name, pb, saved, x, logits)


@pytest.fixture(scope="session")
def real_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RealModel]:
    """ResNet50 and MobileNetV2, built and saved once per session."""
    out = tmp_path_factory.mktemp("tf_real_models")
    return {name: build_application(name, out) for name in ("ResNet50", "MobileNetV2")}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slow TF cases run only when asked for (``-m slow``): CI's plain ``pytest`` skips them."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords and "tests/tf/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(skip)
