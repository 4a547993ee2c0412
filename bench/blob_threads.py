"""How constant size decides whether the ``.bin`` writer's threads gain: f16 compression of
constants of one size, 1 thread against 2.

For each size, 64 MiB of f32 constants of that size (random values, all different) are
compressed into ``/dev/null`` by ``BlobWriter`` with ``threads=1`` (everything on the calling
thread) and ``threads=2`` (a constant of several blocks goes to the pool; one of a single
block stays on the calling thread either way). Best of ``--repeat`` runs each, alternating.
The ratio is the 2-thread time over the 1-thread time: below 1 the pool gains.

    python bench/blob_threads.py
    python bench/blob_threads.py --repeat 9
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from harness import alternating
from irconv_ir import blobs
from irconv_ir.blobs import BlobWriter
from irconv_ir.fp16 import F16

SIZES = (1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 22)
TOTAL = 64 << 20


def write_all(values: list[np.ndarray], threads: int) -> float:
    with open(os.devnull, "wb") as sink, BlobWriter(sink, threads=threads) as writer:
        start = time.perf_counter()
        for value in values:
            writer.add(value, F16, [])
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
    print("| values per constant | blocks | constants | 1 thread ms | 2 threads ms | 2/1 |")
    print("|---:|---:|---:|---:|---:|---:|")
    for size in SIZES:
        values = [rng.standard_normal(size).astype(np.float32) for _ in range(max(1, TOTAL // (4 * size)))]
        best = {1: float("inf"), 2: float("inf")}
        for _, threads in alternating([1, 2], args.repeat):
            best[threads] = min(best[threads], write_all(values, threads))
        step = blobs.block_size(size)
        print(f"| {size} | {-(-size // step)} | {len(values)} | {best[1] * 1e3:.0f} | {best[2] * 1e3:.0f} | "
              f"{best[2] / best[1]:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
