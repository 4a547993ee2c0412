"""TFLite benchmark: the CPU latency of int8 IRs against float IRs, and against LiteRT.

Four Keras applications (random weights: nothing is downloaded), built as the TFLite tests
build them (``tests/tflite/test_keras_applications.py``, ``test_models.py``): MobileNetV2
(alpha 0.35, 96x96), MobileNetV3-Small and EfficientNet-B0 (96x96), ResNet50 (64x64).
TensorFlow's TFLite converter makes each as float, float16 weights and full-integer int8
(random representative data). Each .tflite is converted by irconv (the command line's
defaults, fp16 compression on; the int8 one also with ``--tflite-int8-kernels``, mode
``int8_kernels``: the FakeQuantize form OpenVINO's int8 kernels run, instead of LiteRT's
integer arithmetic) and run by OpenVINO's CPU plugin with the batch fixed to 1 (Keras
declares it dynamic); the same file is run by the LiteRT interpreter (its default XNNPACK
delegate). Latency is the median of ``--runs`` single-image inferences on one thread after
a warm-up; the layers that ran in int8 are counted (the runtime model's
``runtimePrecision``). Prints two Markdown tables: every model and mode, then the int8 IRs
against the float IR per application.

    python bench/tflite_latency.py [--runs 30] [--dir /tmp/tflite-bench] [--models resnet50 ...]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from harness import median_of, use_test_helpers

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
use_test_helpers("tflite")  # the tests' converter set-up and model builders

MODES = ("float", "fp16", "int8", "int8_kernels")


def mobilenet_v2() -> Any:
    import tensorflow as tf

    return tf.keras.applications.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35, weights=None)


def applications() -> dict[str, tuple[Callable[[], Any], np.ndarray]]:
    """name -> (Keras builder, input image), the tests' models and images."""
    from test_keras_applications import APPLICATIONS

    image = np.random.default_rng(0).uniform(-1, 1, (1, 96, 96, 3)).astype(np.float32)
    return {"mobilenet_v2": (mobilenet_v2, image), **APPLICATIONS}


def make_model(folder: Path, name: str, build: Callable[[], Any], image: np.ndarray, mode: str) -> Path:
    import tensorflow as tf
    from tflite_support import convert_with_tf

    path = folder / f"{name}_{'int8' if mode == 'int8_kernels' else mode}.tflite"
    if not path.exists():
        tf.keras.utils.set_random_seed(0)
        with contextlib.redirect_stdout(sys.stderr):  # TensorFlow's converter prints to stdout, the table goes there
            converter = tf.lite.TFLiteConverter.from_keras_model(build())
            path.write_bytes(convert_with_tf(converter, "int8" if mode == "int8_kernels" else mode, [image]))
    return path


def time_runs(run: Callable[[], Any], runs: int) -> float:
    """Median milliseconds of ``runs`` calls after one warm-up call."""
    run()
    return median_of(runs, run) * 1000


def litert_latency(path: Path, image: np.ndarray, runs: int) -> float:
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=str(path), num_threads=1)
    interpreter.allocate_tensors()
    detail = interpreter.get_input_details()[0]
    interpreter.set_tensor(detail["index"], image.astype(detail["dtype"]))
    return time_runs(interpreter.invoke, runs)


def irconv_convert(path: Path, out: Path, int8_kernels: bool = False) -> tuple[float, Path]:
    from irconv.api import convert_model, save_model

    start = time.perf_counter()
    graph = convert_model(path, tflite_int8_kernels=int8_kernels)
    xml = out / f"{path.stem}{'_kernels' if int8_kernels else ''}.xml"
    save_model(graph, xml)
    return time.perf_counter() - start, xml


def openvino_latency(xml: Path, image: np.ndarray, runs: int) -> tuple[float, Counter[str]]:
    import openvino as ov

    core = ov.Core()
    model = core.read_model(str(xml))
    model.reshape({model.inputs[0]: list(image.shape)})  # the Keras input's batch is dynamic
    # Deliberately the CPU's default precision: latency as users run the IR (main() prints it).
    compiled = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": 1, "PERFORMANCE_HINT": "LATENCY"})
    request = compiled.create_infer_request()
    latency = time_runs(lambda: request.infer({0: image}), runs)
    int8: Counter[str] = Counter()
    for op in compiled.get_runtime_model().get_ops():
        info = op.get_rt_info()
        if info["runtimePrecision"].astype(str) in ("i8", "u8"):
            int8[info["layerType"].astype(str)] += 1
    return latency, int8


@dataclass
class Row:
    name: str
    mode: str
    tflite_kib: float
    convert_s: float
    bin_kib: float
    litert_ms: float
    openvino_ms: float
    int8_layers: Counter[str]


def measure(folder: Path, name: str, build: Callable[[], Any], image: np.ndarray, mode: str, runs: int) -> Row:
    path = make_model(folder, name, build, image, mode)
    seconds, xml = irconv_convert(path, folder, int8_kernels=mode == "int8_kernels")
    ov_ms, int8 = openvino_latency(xml, image, runs)
    size = xml.with_suffix(".bin").stat().st_size / 1024
    return Row(name, mode, path.stat().st_size / 1024, seconds, size, litert_latency(path, image, runs), ov_ms, int8)


def print_tables(rows: list[Row]) -> None:
    print("| model | mode | .tflite KiB | convert s | IR .bin KiB | LiteRT ms | OpenVINO ms | layers run in int8 |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        layers = ", ".join(f"{kind} x{count}" for kind, count in sorted(r.int8_layers.items())) or "none"
        print(
            f"| {r.name} | {r.mode} | {r.tflite_kib:.0f} | {r.convert_s:.2f} | {r.bin_kib:.0f} | "
            f"{r.litert_ms:.2f} | {r.openvino_ms:.2f} | {layers} |"
        )
    print("\nint8 IRs against the float IR (OpenVINO ms; ratio to float):\n")
    print(
        "| model | float | int8 (LiteRT's arithmetic) | ratio | int8 --tflite-int8-kernels | ratio | LiteRT int8 / float |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    by_key = {(r.name, r.mode): r for r in rows}
    for name in dict.fromkeys(r.name for r in rows):
        f, q, k = (by_key.get((name, mode)) for mode in ("float", "int8", "int8_kernels"))
        if f is None or q is None or k is None:
            continue
        print(
            f"| {name} | {f.openvino_ms:.2f} | {q.openvino_ms:.2f} | {q.openvino_ms / f.openvino_ms:.2f} | "
            f"{k.openvino_ms:.2f} | {k.openvino_ms / f.openvino_ms:.2f} | {q.litert_ms / f.litert_ms:.2f} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/tflite-bench"))
    parser.add_argument("--models", nargs="*", help="a subset of the applications (default: all four)")
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=MODES)
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    found = applications()
    names = args.models or list(found)
    unknown = sorted(set(names) - set(found))
    if unknown:
        parser.error(f"unknown models {unknown}; choose from {sorted(found)}")
    import openvino as ov

    precision = ov.Core().get_property("CPU", "INFERENCE_PRECISION_HINT").get_type_name()
    print(f"batch 1, one thread, median of {args.runs} runs, CPU default precision {precision}\n")
    rows = [measure(args.dir, name, *found[name], mode, args.runs) for name in names for mode in args.modes]
    print_tables(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
