"""f32 -> f16 weight compression cost: NumPy's cast against irconv's bit-level encoder.

Encodes BERT-like weights, N(0, 0.02) with a few exact zeros, cut into blocks of about
1M values as the ``.bin`` writer cuts them (``irconv_ir.blobs.blocks``): C-contiguous
1024 x 1024 weights, and the transposed views ``fuse.transpose_matmul_weights`` leaves,
of BERT's 3072 x 768 FFN weights (blocks of 341 x 3072 values) and of 1024 x 1024 ones
(a power-of-two row stride: the worst case for the strided writes). On one thread, then
on two (the writer's two encoder threads, each taking every other block). The weights
(about 32 MiB) outgrow the L3 cache, as a model's do. Prints ns per value, the best of
``--repeat`` runs; two-thread figures are wall time over both threads' values.

    python bench/fp16_cast.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from harness import markdown_table
from irconv_ir.blobs import BLOCK, blocks
from irconv_ir.fp16 import encode_f16

Encoder = Callable[[np.ndarray, np.ndarray], object]


def numpy_cast(source: np.ndarray, out: np.ndarray) -> None:
    """NumPy's cast alone (what encode_f16 did before, without its clamping and counting)."""
    with np.errstate(over="ignore", invalid="ignore"):
        np.copyto(out.reshape(source.shape), source, casting="unsafe")


def weight(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    matrix = rng.standard_normal(shape, np.float32) * np.float32(0.02)
    matrix[rng.random(shape) < 0.001] = 0
    return matrix


#: Layout name -> the weights' (shape, count), and whether the writer sees them transposed.
LAYOUTS: dict[str, tuple[tuple[int, int], int, bool]] = {
    "contiguous 1024x1024": ((1024, 1024), 8, False),
    "transposed 3072x768 (BERT FFN)": ((3072, 768), 3, True),
    "transposed 1024x1024": ((1024, 1024), 8, True),
}


def layout_blocks(shape: tuple[int, int], count: int, transposed: bool) -> list[np.ndarray]:
    """The blocks the writer encodes for ``count`` weights of ``shape``."""
    rng = np.random.default_rng(0)
    values = [weight(rng, shape) for _ in range(count)]
    return [block for value in values for block in blocks(value.T if transposed else value, BLOCK)]


def encode_once(
    encode: Encoder, work: list[np.ndarray], outs: list[np.ndarray], pool: ThreadPoolExecutor, threads: int
) -> float:
    """Seconds to encode all blocks of ``work`` on ``threads`` threads of ``pool``, each
    taking every ``threads``-th block."""

    def encode_share(first: int) -> None:
        for i in range(first, len(work), threads):
            encode(work[i], outs[i])

    start = time.perf_counter()
    list(pool.map(encode_share, range(threads)))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    encoders = {"NumPy cast": numpy_cast, "encode_f16": encode_f16}
    pool = ThreadPoolExecutor(2)
    works = {name: layout_blocks(*spec) for name, spec in LAYOUTS.items()}
    outs = {name: [np.empty(block.size, np.float16) for block in work] for name, work in works.items()}
    best: dict[tuple[str, int, str], float] = {}
    # round after round over every cell, so that a burst of other load spoils one try, not a cell
    for _ in range(args.repeat):
        for name, work in works.items():
            values = sum(block.size for block in work)
            for threads in (1, 2):
                for label, encode in encoders.items():
                    ns = encode_once(encode, work, outs[name], pool, threads) / values * 1e9
                    best[name, threads, label] = min(best.get((name, threads, label), ns), ns)
    rows = []
    for name in works:
        cells = [name]
        for threads in (1, 2):
            base, new = best[name, threads, "NumPy cast"], best[name, threads, "encode_f16"]
            cells += [f"{base:.2f}", f"{new:.2f} ({base / new:.1f}x)"]
        rows.append(cells)
    headers = ["layout", "NumPy cast, 1 thread", "encode_f16, 1 thread", "NumPy cast, 2 threads", "encode_f16, 2 threads"]
    print(markdown_table(headers, rows))
    pool.shutdown()


if __name__ == "__main__":
    main()
