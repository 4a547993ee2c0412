"""Constant-folding cost of the opB op families' NumPy ``evaluate``.

PriorBox/PriorBoxClustered are folded in every Caffe SSD model; Convolution and MatMul
fold when a front end leaves weight-only sub-graphs. Each row is the best of ``--repeat``
runs (seconds), on the shapes a real detector or CNN layer uses.

    python bench/opset_fold.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from irconv_opset import Convolution, MatMul, MaxPool, PriorBox, PriorBoxClustered


def best_of(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def rows() -> list[tuple[str, str, Callable[[], object]]]:
    rng = np.random.default_rng(0)
    ssd = PriorBox(
        min_size=(30.0,), max_size=(60.0,), aspect_ratio=(2.0, 3.0), flip=True, step=8.0, offset=0.5,
        variance=(0.1, 0.1, 0.2, 0.2),
    )  # fmt: skip
    clustered = PriorBoxClustered(width=(10.0, 20.0, 40.0, 80.0), height=(12.0, 24.0, 48.0, 96.0), offset=0.5)
    conv = Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))
    pool = MaxPool(kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1), dilations=(1, 1))
    x = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    w = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    a = rng.standard_normal((512, 512)).astype(np.float32)
    sizes = lambda n: np.array([n, n], np.int64)  # noqa: E731
    return [
        ("PriorBox-8", "38x38 map, 6 boxes/cell", lambda: ssd.evaluate([sizes(38), sizes(300)])),
        ("PriorBox-8", "128x128 map, 6 boxes/cell", lambda: ssd.evaluate([sizes(128), sizes(512)])),
        ("PriorBoxClustered-1", "128x128 map, 4 boxes/cell", lambda: clustered.evaluate([sizes(128), sizes(512)])),
        ("Convolution-1", "1x64x56x56 * 64x64x3x3", lambda: conv.evaluate([x, w])),
        ("MaxPool-14", "1x64x56x56, 3x3 s2 (values + indices)", lambda: pool.evaluate([x])),
        ("MatMul-1", "512x512 @ 512x512", lambda: MatMul().evaluate([a, a])),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| op | input | evaluate s |")
    print("|---|---|---|")
    for op, what, run in rows():
        print(f"| {op} | {what} | {best_of(args.repeat, run):.4f} |")


if __name__ == "__main__":
    main()
