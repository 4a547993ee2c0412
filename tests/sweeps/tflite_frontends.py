"""irconv's TFLite front end against OpenVINO's own, on the TFLite test models.

Every model the TFLite tests make with TensorFlow's converter (the per-operator cases of
tests/tflite/test_ops.py, float and full-integer; the small CNN in six quantization modes;
the small functions of test_models.py as float, fp16 weights, dynamic-range and int8;
Keras MobileNetV2, MobileNetV3-Small, EfficientNet-B0 and ResNet50 as float, fp16 weights
and int8, and the further Keras applications of test_more_applications.py as float;
the text models; the SSD-style detector; WHILE and IF) is converted twice: by
irconv (``irconv.api.convert_model``) and by OpenVINO (``openvino.convert_model`` on the
.tflite). Each IR runs on OpenVINO's CPU plugin (f32 inference precision) and is judged
against the LiteRT interpreter on the same inputs, with the tests' criteria: float outputs
within the case's tolerance, quantized outputs within one quantization step on >= 99.9 % of
their elements, detections as sets. A conversion that raises counts as a failure; a model
the converter cannot make in a mode, or LiteRT cannot run, is left out (listed as "not
made").

    python tests/sweeps/tflite_frontends.py [--dir /tmp/tflite-frontends] [--quick] [--verbose]

``--quick`` leaves out the Keras applications but MobileNetV2 (making them takes most of
the time). Models are kept in ``--dir`` and reused by later runs. Prints a Markdown table and
the models on which the two front ends disagree.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "tflite"))  # the tests' model builders and helpers


@dataclass
class Entry:
    """A test model: how to make it, how to judge outputs (``close``, ``steps``, ``detections``)."""

    key: str
    make: Callable[[Any], Any]  # ModelCache -> Made
    judge: str = "close"
    atol: float = 1e-5
    rtol: float = 1e-4
    relative_atol: bool = False  # atol scaled by the largest reference magnitude (logits)


def corpus(quick: bool) -> list[Entry]:
    import test_control_flow as control
    import test_detection_model as detection
    import test_keras_applications as applications
    import test_models as models
    import test_more_applications as more_applications
    import test_ops as ops
    import test_text_models as text

    entries: list[Entry] = []
    for name, case in sorted(ops.CASES.items()):
        entries.append(Entry(f"op_{name}_float", lambda c, n=name, k=case: ops._made(n, k, "float", c), atol=case.atol))
        if case.int8:
            entries.append(Entry(f"op_{name}_int8_io", lambda c, n=name, k=case: ops._made(n, k, "int8_io", c),
                                 judge="steps"))
    for mode in ("float", "fp16", "dynamic", "int8", "int8_io", "int16x8"):
        judge = "steps" if mode.startswith("int") else "close"
        atol = 2e-2 if mode == "dynamic" else 1e-5
        entries.append(Entry(f"small_cnn_{mode}", lambda c, m=mode: c.from_keras(
            f"small_cnn_{m}", models.small_cnn, [models.IMAGE_32], m), judge=judge, atol=atol, rtol=max(atol, 1e-4)))
    for name, (fn, inputs) in sorted(models.FUNCTIONS.items()):
        for mode in ("float", "fp16", "dynamic", "int8"):
            atol = 2e-2 if mode == "dynamic" else 1e-4
            entries.append(Entry(f"fn_{name}_{mode}", lambda c, n=name, f=fn, i=inputs, m=mode: c.from_function(
                f"fn_{n}_{m}", f, i, m), judge="steps" if mode == "int8" else "close", atol=atol, rtol=max(atol, 1e-4)))
    networks: list[tuple[str, Callable[[], Any], np.ndarray]] = [
        ("mobilenet_v2", models.mobilenet_v2, models.IMAGE_96)]
    if not quick:
        networks += [(name, build, image) for name, (build, image) in sorted(applications.APPLICATIONS.items())]
    for name, build, image in networks:
        for mode in ("float", "fp16", "int8"):
            entries.append(Entry(f"{name}_{mode}", lambda c, n=name, b=build, i=image, m=mode: c.from_keras(
                f"{n}_{m}", b, [i], m), judge="steps" if mode == "int8" else "close", relative_atol=True))
    if not quick:
        for name, (build, image) in sorted(more_applications.NETWORKS.items()):
            entries.append(Entry(f"{name}_float", lambda c, n=name, b=build, i=image: c.from_keras(
                f"{n}_float", b, [i], "float"), relative_atol=True))
    for name, layers in sorted(text.LAYERS.items()):
        entries.append(Entry(f"text_{name}_keras3", lambda c, n=name, lay=layers: c.from_keras(
            f"text_{n}_keras3", lambda: text._text_model(text._keras3(), lay), [text.TOKENS])))
    try:
        import tf_keras
    except ImportError:
        tf_keras = None
    if tf_keras is not None:
        for name in ("stacked_lstm", "bidirectional_lstm"):
            entries.append(Entry(f"text_{name}_tf_keras", lambda c, n=name: c.from_keras(
                f"text_{n}_tf_keras", lambda: text._text_model(tf_keras, text.LAYERS[n]), [text.TOKENS])))
        entries.append(Entry("lstm_forward_int8_io", lambda c: c.from_keras(
            "lstm_forward_int8_io", lambda: text._sequence_lstm(tf_keras, False), [text.SEQUENCE], "int8_io"),
            judge="steps"))
    for regular in (False, True):
        key = f"ssd_{'regular' if regular else 'fast'}"
        entries.append(Entry(key, lambda c, k=key, r=regular: c.from_saved_model(
            k, detection._detector(r), [detection.IMAGE], allow_custom_ops=True), judge="detections"))
    entries.append(Entry("while", lambda c: c.from_function("while", control._while, [np.ones((2, 3), np.float32)])))
    x = np.random.default_rng(3).uniform(-2, 2, (2, 3)).astype(np.float32)
    entries.append(Entry("if", lambda c: c.from_function("if", control._if, [x, np.array([1.0], np.float32)])))
    return entries


# ------------------------------------------------------------------ running the two front ends
def run_openvino_frontend(path: Path, feed: dict[str, np.ndarray], names: Sequence[str]) -> list[np.ndarray]:
    """OpenVINO's TFLite front end: outputs in the interpreter's order (by tensor name, else position)."""
    import openvino as ov
    from irconv.runtime import compile_for_comparison

    model = ov.convert_model(str(path))
    compiled = compile_for_comparison(model, core=ov.Core())
    values = list(feed.values())
    inputs = {}
    for i, port in enumerate(compiled.inputs):
        match = next((n for n in feed if n in port.get_names()), None)
        inputs[port] = feed[match] if match is not None else values[i]
    result = compiled.create_infer_request().infer(inputs)
    by_name = {}
    for port in compiled.outputs:
        for name in port.get_names():
            by_name[name] = np.array(result[port])
    positional = [np.array(result[port]) for port in compiled.outputs]
    return [by_name[n] if n in by_name else positional[i] for i, n in enumerate(names)]


def judged(entry: Entry, path: Path, got: list[np.ndarray], expected: list[np.ndarray]) -> str | None:
    """None when ``got`` passes the entry's criterion, else why not."""
    from tflite_support import quantization_steps

    if len(got) != len(expected):
        return f"{len(got)} outputs, LiteRT has {len(expected)}"
    if entry.judge == "detections":
        import test_detection_model as detection

        order = detection._output_order(path)
        try:
            detection._same_sets(detection._detections([got[i] for i in order]),
                                 detection._detections([expected[i] for i in order]))
        except AssertionError as exc:
            return str(exc)
        return None
    steps = quantization_steps(path) if entry.judge == "steps" else [0.0] * len(expected)
    for i, (g, e, step) in enumerate(zip(got, expected, steps, strict=True)):
        if g.shape != e.shape:
            return f"output {i}: shape {g.shape}, LiteRT {e.shape}"
        diff = np.abs(g.astype(np.float64) - e.astype(np.float64))
        if step > 0:
            within = float(np.mean(diff <= step * 1.0001))
            if within < 0.999:
                return f"output {i}: {within:.4f} within one step"
            continue
        atol = entry.atol * (float(np.abs(e).max()) if entry.relative_atol else 1.0)
        if not np.all(diff <= atol + entry.rtol * np.abs(e.astype(np.float64))):
            return f"output {i}: max abs difference {diff.max():.3g}"
    return None


class NotMade(Exception):
    """TensorFlow's converter could not make the model, or LiteRT could not run it (a
    quantization mode an operator has no kernel for): left out of the counts."""


def evaluate(entry: Entry, cache: Any, out_dir: Path, verbose: bool) -> tuple[str | None, str | None]:
    """(irconv's failure or None, OpenVINO's failure or None)."""
    from tflite_support import interpreter_inputs, run_irconv, run_reference

    try:
        with contextlib.redirect_stdout(sys.stderr):  # TensorFlow's converter prints to stdout, the table goes there
            made = entry.make(cache)
        feed = interpreter_inputs(made.path, made.inputs)
        reference, names = run_reference(made.path, feed)
    except Exception as exc:  # noqa: BLE001 - the converter or LiteRT refusing a mode is not a front end's result
        lines = [line for line in str(exc).splitlines() if line.strip()]
        raise NotMade(f"{type(exc).__name__}: {lines[-1][:160] if lines else ''}") from None
    expected = [reference[n] for n in names]
    verdicts: list[str | None] = []
    for frontend in ("irconv", "openvino"):
        try:
            if frontend == "irconv":
                outputs, _ = run_irconv(made.path, feed, out_dir)
                got = [outputs[n] for n in names]
            else:
                got = run_openvino_frontend(made.path, feed, names)
            verdicts.append(judged(entry, made.path, got, expected))
        except Exception as exc:  # noqa: BLE001 - a failed conversion is a result here
            lines = [line for line in str(exc).splitlines() if line.strip()]
            verdicts.append(f"{type(exc).__name__}: {lines[-1][:160] if lines else ''}")  # the last line says why
            if verbose:
                traceback.print_exc()
    return verdicts[0], verdicts[1]


class DiskCache:
    """The tests' ModelCache, reusing the .tflite files a previous run left in the folder."""

    def __init__(self, folder: Path) -> None:
        from tflite_support import Made, ModelCache

        self._cache = ModelCache(folder)
        self._made = Made

    def __getattr__(self, method: str) -> Callable[..., Any]:
        make = getattr(self._cache, method)

        def cached(key: str, fn: Any, inputs: Sequence[np.ndarray], *args: Any, **kwargs: Any) -> Any:
            path = self._cache.folder / f"{key}.tflite"
            if path.exists():
                return self._made(path, list(inputs))
            return make(key, fn, inputs, *args, **kwargs)

        return cached


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/tflite-frontends"))
    parser.add_argument("--quick", action="store_true", help="leave out the Keras applications")
    parser.add_argument("--verbose", action="store_true", help="tracebacks of failed conversions")
    args = parser.parse_args(argv)
    (args.dir / "ir").mkdir(parents=True, exist_ok=True)
    cache = DiskCache(args.dir)
    rows: list[tuple[str, str | None, str | None]] = []
    for entry in corpus(args.quick):
        try:
            irconv_fail, openvino_fail = evaluate(entry, cache, args.dir / "ir", args.verbose)
        except NotMade as exc:
            print(f"{entry.key}: not made ({exc})", file=sys.stderr, flush=True)
            continue
        rows.append((entry.key, irconv_fail, openvino_fail))
        print(f"{entry.key}: irconv {'ok' if irconv_fail is None else irconv_fail}; "
              f"openvino {'ok' if openvino_fail is None else openvino_fail}", file=sys.stderr, flush=True)
    groups = {"per-op, float": lambda k: k.startswith("op_") and k.endswith("_float"),
              "per-op, int8": lambda k: k.startswith("op_") and k.endswith("_int8_io"),
              "functions": lambda k: k.startswith("fn_"),
              "models": lambda k: not k.startswith(("op_", "fn_"))}
    print("| models | count | irconv correct | OpenVINO correct |")
    print("|---|---:|---:|---:|")
    for label, member in [*groups.items(), ("all", lambda k: True)]:
        chosen = [r for r in rows if member(r[0])]
        print(f"| {label} | {len(chosen)} | {sum(r[1] is None for r in chosen)} | {sum(r[2] is None for r in chosen)} |")
    print("\nWhere they differ:\n")
    for key, irconv_fail, openvino_fail in rows:
        if (irconv_fail is None) != (openvino_fail is None):
            print(f"- {key}: irconv {'ok' if irconv_fail is None else irconv_fail}; "
                  f"OpenVINO {'ok' if openvino_fail is None else openvino_fail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
