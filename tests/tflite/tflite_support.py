"""Helpers for the TFLite tests: make .tflite files with TensorFlow's converter, run
them in the LiteRT interpreter (the reference) and through irconv + OpenVINO.

TensorFlow is imported only when a model is made; every model made in a session is kept
(``tflite_models``: keyed by the test's own name), since conversion is slow.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from irconv.runtime import compile_for_comparison

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

#: Quantization modes of the converter: none, float16 weights, dynamic-range int8 weights,
#: full integer with float model I/O, full integer with int8 model I/O, int16 activations
#: with int8 weights; and float with sparse weights (mostly-zero weights stored sparse).
MODES = ("float", "fp16", "dynamic", "int8", "int8_io", "int16x8", "sparse")


def convert_with_tf(converter: Any, mode: str, inputs: Sequence[np.ndarray], seed: int = 0) -> bytes:
    """``converter`` (a TFLiteConverter) set up for ``mode`` and run."""
    import tensorflow as tf

    if mode == "sparse":
        converter.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
    elif mode == "fp16":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif mode == "dynamic":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    elif mode in ("int8", "int8_io", "int16x8"):
        rng = np.random.default_rng(seed)

        def representative() -> Iterator[list[np.ndarray]]:
            for _ in range(16):
                yield [_like(rng, x) for x in inputs]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
        converter.target_spec.supported_ops = [
            tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 if mode == "int16x8"
            else tf.lite.OpsSet.TFLITE_BUILTINS_INT8
        ]
        if mode == "int8_io":
            converter.inference_input_type = tf.int8
            converter.inference_output_type = tf.int8
    return bytes(converter.convert())


def _like(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """Random data with ``x``'s shape and type, spread like ``x``."""
    if x.dtype.kind == "f":
        low, high = float(x.min()), float(x.max())
        return rng.uniform(low, high if high > low else low + 1, x.shape).astype(x.dtype)
    return x


@dataclass
class Made:
    """A .tflite file and the float inputs it was made for."""

    path: Path
    inputs: list[np.ndarray]


class ModelCache:
    """.tflite files made once per session, by key."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made: dict[str, Made] = {}

    def from_function(self, key: str, fn: Callable[..., Any], inputs: Sequence[np.ndarray], mode: str = "float",
                      variables: Any = None) -> Made:
        """``fn`` traced on ``inputs`` (named in0, in1, ...) and converted in ``mode``."""
        if key in self.made:
            return self.made[key]
        import tensorflow as tf

        specs = [tf.TensorSpec(x.shape, tf.as_dtype(x.dtype), name=f"in{i}") for i, x in enumerate(inputs)]
        # no autograph: the functions use TF ops only, and autograph mislocates the source
        # of a lambda written over several lines (it converted a different function)
        concrete = tf.function(fn, autograph=False).get_concrete_function(*specs)
        converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], variables)
        return self._save(key, convert_with_tf(converter, mode, inputs), inputs)

    def from_saved_model(self, key: str, fn: Callable[..., Any], inputs: Sequence[np.ndarray],
                         allow_custom_ops: bool = False) -> Made:
        """``fn`` saved as a SavedModel's serving signature (inputs named in0, in1, ...) and
        converted from there: the path on which the converter turns a ``tf.function`` with
        ``experimental_implements`` into the custom operator it names."""
        if key in self.made:
            return self.made[key]
        import tensorflow as tf

        specs = [tf.TensorSpec(x.shape, tf.as_dtype(x.dtype), name=f"in{i}") for i, x in enumerate(inputs)]
        module = tf.Module()
        module.serve = tf.function(fn, input_signature=specs, autograph=False)
        folder = self.folder / f"{key}_saved_model"
        tf.saved_model.save(module, str(folder), signatures={"serving_default": module.serve})
        converter = tf.lite.TFLiteConverter.from_saved_model(str(folder))
        converter.allow_custom_ops = allow_custom_ops
        return self._save(key, convert_with_tf(converter, "float", inputs), inputs)

    def from_keras(self, key: str, build: Callable[[], Any], inputs: Sequence[np.ndarray], mode: str = "float") -> Made:
        if key in self.made:
            return self.made[key]
        import tensorflow as tf

        tf.keras.utils.set_random_seed(0)
        converter = tf.lite.TFLiteConverter.from_keras_model(build())
        return self._save(key, convert_with_tf(converter, mode, inputs), inputs)

    def _save(self, key: str, data: bytes, inputs: Sequence[np.ndarray]) -> Made:
        path = self.folder / f"{key}.tflite"
        path.write_bytes(data)
        self.made[key] = Made(path, list(inputs))
        return self.made[key]


# ------------------------------------------------------------------------- running
def interpreter_inputs(path: Path, inputs: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
    """The model's inputs by tensor name: float data as given, or quantized to an integer
    input's grid as a user of the int8 model would feed it."""
    from ai_edge_litert.interpreter import Interpreter

    details = Interpreter(model_path=str(path)).get_input_details()
    feed = {}
    for detail, x in zip(details, inputs, strict=True):
        if detail["dtype"] in (np.int8, np.uint8, np.int16) and x.dtype.kind == "f":
            scale, zero = detail["quantization"]
            info = np.iinfo(detail["dtype"])
            x = np.clip(np.round(x / scale + zero), info.min, info.max).astype(detail["dtype"])
        feed[detail["name"]] = x.astype(detail["dtype"])
    return feed


def run_reference(path: Path, feed: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], list[str]]:
    """LiteRT's outputs by tensor name, and the output names in the model's order."""
    from ai_edge_litert.interpreter import Interpreter
    from irconv_tflite.verify import run_interpreter

    names = [d["name"] for d in Interpreter(model_path=str(path)).get_output_details()]
    return run_interpreter(path, feed, None), names


def run_irconv(path: Path, feed: dict[str, np.ndarray], out_dir: Path, compress_to_fp16: bool = False,
               **options: Any) -> tuple[dict[str, np.ndarray], Any]:
    """Convert with irconv (every transform's contract checked), run the IR on OpenVINO's CPU
    plugin; outputs by every tensor name, and the ``openvino.Model`` read from the IR.
    Float constants stay f32 unless ``compress_to_fp16`` (the command line's default)."""
    import openvino as ov
    from irconv.api import convert_model, save_model

    graph = convert_model(path, validate=True, **options)
    xml = out_dir / f"{path.stem}.xml"
    save_model(graph, xml, compress_to_fp16=compress_to_fp16)
    core = ov.Core()
    model = core.read_model(str(xml))
    compiled = compile_for_comparison(model, core=core)
    request = compiled.create_infer_request()
    request.infer({port: feed[next(n for n in feed if n in port.get_names())] for port in compiled.inputs})
    outputs = {}
    for port in compiled.outputs:
        value = np.array(request.get_tensor(port).data)
        for name in port.get_names():
            outputs[name] = value
    return outputs, model


@dataclass
class Compared:
    """IR and interpreter outputs side by side, in the model's output order."""

    got: list[np.ndarray]
    expected: list[np.ndarray]
    model: Any

    def op_types(self) -> list[str]:
        return [op.get_type_name() for op in self.model.get_ops()]


def compare(path: Path, inputs: Sequence[np.ndarray], out_dir: Path, compress_to_fp16: bool = False,
            **options: Any) -> Compared:
    feed = interpreter_inputs(path, inputs)
    expected, names = run_reference(path, feed)
    got, model = run_irconv(path, feed, out_dir, compress_to_fp16, **options)
    missing = [n for n in names if n not in got]
    assert not missing, f"IR outputs {sorted(got)} lack {missing}"
    return Compared([got[n] for n in names], [expected[n] for n in names], model)


def quantization_steps(path: Path) -> list[float]:
    """Per output, one step of its grid: 1 for an integer output; for a float output made
    by a DEQUANTIZE, the scale of the tensor it dequantizes (0: a float model's output)."""
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=str(path))
    tensors = {d["index"]: d for d in interpreter.get_tensor_details()}
    producers = {int(o): op for op in interpreter._get_ops_details() for o in op["outputs"]}  # noqa: SLF001
    steps = []
    for detail in interpreter.get_output_details():
        op = producers.get(detail["index"])
        if detail["dtype"] != np.float32:
            steps.append(1.0)
        elif op is not None and op["op_name"] == "DEQUANTIZE":
            steps.append(float(tensors[int(op["inputs"][0])]["quantization"][0]))
        else:
            steps.append(0.0)
    return steps


def assert_close(compared: Compared, atol: float = 1e-4, rtol: float = 1e-4) -> None:
    for i, (g, e) in enumerate(zip(compared.got, compared.expected, strict=True)):
        assert g.shape == e.shape, f"output {i}: shape {g.shape} != LiteRT's {e.shape}"
        assert g.dtype == e.dtype, f"output {i}: type {g.dtype} != LiteRT's {e.dtype}"
        if e.dtype.kind in "iub":
            np.testing.assert_array_equal(g, e, err_msg=f"output {i}")
        else:
            np.testing.assert_allclose(g, e, atol=atol, rtol=rtol, err_msg=f"output {i}")


def within_one_step(compared: Compared, steps: Sequence[float]) -> list[float]:
    """Per output, the fraction of elements within one quantization step of LiteRT's."""
    fractions = []
    for g, e, step in zip(compared.got, compared.expected, steps, strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype
        assert step > 0, "the output is not quantized"
        tolerance = step
        diff = np.abs(g.astype(np.float64) - e.astype(np.float64))
        fractions.append(float(np.mean(diff <= tolerance * 1.0001)))
    return fractions
