"""TFLite benchmark: conversion time, IR size and inference latency against LiteRT.

Keras MobileNetV2 (alpha 0.35, 96x96, random weights: nothing is downloaded) is converted by
TensorFlow's TFLite converter as float, float16 weights and full-integer int8 (random
representative data). Each .tflite is converted by irconv (the command line's defaults,
fp16 compression on) and run by OpenVINO's CPU plugin with the batch fixed to 1 (Keras
declares it dynamic); the same file is run by the LiteRT interpreter. Latency is the median of ``--runs`` single-image inferences on one thread
after a warm-up. Also printed: which OpenVINO layers ran in int8 (the runtime model's
``runtimePrecision``). Prints a Markdown table.

    python bench/tflite_latency.py [--runs 50] [--dir /tmp/tflite-bench] [--alpha 0.35] [--size 96]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "tflite"))  # the tests' converter set-up


def make_models(folder: Path, alpha: float, size: int) -> dict[str, tuple[Path, np.ndarray]]:
    import tensorflow as tf
    from tflite_support import convert_with_tf

    image = np.random.default_rng(0).uniform(-1, 1, (1, size, size, 3)).astype(np.float32)
    made = {}
    for mode in ("float", "fp16", "int8"):
        path = folder / f"mobilenet_v2_{alpha}_{size}_{mode}.tflite"
        if not path.exists():
            tf.keras.utils.set_random_seed(0)
            model = tf.keras.applications.MobileNetV2(input_shape=(size, size, 3), alpha=alpha, weights=None)
            converter = tf.lite.TFLiteConverter.from_keras_model(model)
            path.write_bytes(convert_with_tf(converter, mode, [image]))
        made[mode] = (path, image)
    return made


def time_runs(run: Any, runs: int) -> float:
    run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def litert_latency(path: Path, image: np.ndarray, runs: int) -> float:
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=str(path), num_threads=1)
    interpreter.allocate_tensors()
    index = interpreter.get_input_details()[0]["index"]
    interpreter.set_tensor(index, image)
    return time_runs(interpreter.invoke, runs)


def irconv_convert(path: Path, out: Path) -> tuple[float, Path]:
    from irconv.api import convert_model, save_model

    start = time.perf_counter()
    graph = convert_model(path)
    xml = out / f"{path.stem}.xml"
    save_model(graph, xml)
    return time.perf_counter() - start, xml


def openvino_latency(xml: Path, image: np.ndarray, runs: int) -> tuple[float, Counter[str]]:
    import openvino as ov

    core = ov.Core()
    model = core.read_model(str(xml))
    model.reshape({model.inputs[0]: list(image.shape)})  # the Keras input's batch is dynamic
    compiled = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": 1, "PERFORMANCE_HINT": "LATENCY"})
    request = compiled.create_infer_request()
    latency = time_runs(lambda: request.infer({0: image}), runs)
    int8: Counter[str] = Counter()
    for op in compiled.get_runtime_model().get_ops():
        info = op.get_rt_info()
        if info["runtimePrecision"].astype(str) in ("i8", "u8"):
            int8[info["layerType"].astype(str)] += 1
    return latency, int8


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/tflite-bench"))
    parser.add_argument("--alpha", type=float, default=0.35)
    parser.add_argument("--size", type=int, default=96)
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    models = make_models(args.dir, args.alpha, args.size)
    print(f"MobileNetV2 alpha={args.alpha} {args.size}x{args.size}, batch 1, one thread, median of {args.runs}\n")
    print("| model | .tflite KiB | convert s | IR .bin KiB | LiteRT ms | OpenVINO ms | layers run in int8 |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for mode, (path, image) in models.items():
        seconds, xml = irconv_convert(path, args.dir)
        ov_ms, int8 = openvino_latency(xml, image, args.runs)
        lite_ms = litert_latency(path, image, args.runs)
        layers = ", ".join(f"{kind} x{count}" for kind, count in sorted(int8.items())) or "none"
        print(f"| {mode} | {path.stat().st_size / 1024:.0f} | {seconds:.2f} | "
              f"{xml.with_suffix('.bin').stat().st_size / 1024:.0f} | {lite_ms:.2f} | {ov_ms:.2f} | {layers} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
