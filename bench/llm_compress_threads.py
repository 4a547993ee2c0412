"""Weight compression on several threads: the scales of a set of large matrices computed with
1, 2, ... threads (``--threads``), time and speedup, and whether every thread count
gives the same bytes.

The matrices are seeded random f32 ``[rows, cols]`` (a Llama-7B layer's shapes by default:
four 4096x4096 attention projections and three 11008x4096 MLP ones, 202 M values; with
``--bf16`` held in bf16 and read as f32 block by block, as a Hugging Face checkpoint's are);
the work timed is what ``compress.weights`` does: each matrix's scales (the range narrowing
search, and with ``--refine`` the activation-weighted one with scale estimation), then its
levels packed as the ``.bin`` writer packs them. The data-free range search runs its inner
loop as NumPy's passes or compiled (``--loops numpy compiled``: ``range_kernel``); the digest
shows both give the same bytes. CPU time over wall time shows how many cores the run had;
the load average, how many other processes wanted them; CPU ns a value, what the work costs.

    python bench/llm_compress_threads.py [--scale 1.0] [--threads 1 2] [--format int4-asym]
        [--group 128] [--refine] [--bf16] [--loops numpy compiled]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from functools import partial

import numpy as np

SHAPES = [(4096, 4096)] * 4 + [(11008, 4096), (11008, 4096), (4096, 11008)]


def compress(matrices: list[np.ndarray], scheme: object, importance: list[np.ndarray] | None, threads: int,
             offset_sums: object = None) -> str:
    """A digest of every matrix's scales, zero points and levels, computed on ``threads``
    threads (``offset_sums``: the range search's compiled loop, or None)."""
    from irconv_transforms.weight_compression.parallel import run_in_order
    from irconv_transforms.weight_compression.quantize import DeferredQuantized, assemble, quantization_jobs

    jobs, spans = [], []
    for index, matrix in enumerate(matrices):
        weight = None if importance is None else importance[index]
        made = quantization_jobs(matrix, scheme, np.float16, weight, importance is not None, offset_sums)  # type: ignore[arg-type]
        jobs += made
        spans.append(len(made))
    results = run_in_order(jobs, threads)
    digest = hashlib.sha256()
    for matrix, span in zip(matrices, spans, strict=True):
        params = assemble(scheme, *matrix.shape, [next(results) for _ in range(span)])  # type: ignore[arg-type]
        digest.update(params.scale.tobytes())
        if params.zero_point is not None:
            digest.update(params.zero_point.tobytes())
        blocks = list(DeferredQuantized(matrix, params).blocks(1 << 20))
        for level in run_in_order([partial(_packed, block) for block in blocks], threads):
            digest.update(level.tobytes())
    return digest.hexdigest()[:16]


def _packed(block: object) -> np.ndarray:
    """A block's levels as the ``.bin`` holds them (4-bit values two a byte)."""
    from irconv_ir.blobs import storage

    levels = block.materialize()  # type: ignore[attr-defined]
    encoding = storage(levels.dtype)
    out = np.empty(encoding.items(levels.size), encoding.dtype)
    encoding.encode(levels, out)
    return out


def main() -> None:
    from irconv.contract.options import available_cores
    from irconv_transforms.weight_compression.compress_weights import primary_scheme

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="each matrix's rows times this")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--format", default="int4-asym")
    parser.add_argument("--group", type=int, default=128)
    parser.add_argument("--refine", action="store_true", help="activation-weighted, with scale estimation")
    parser.add_argument("--bf16", action="store_true", help="weights held in bf16, read as f32 block by block")
    parser.add_argument("--loops", nargs="+", default=["compiled"], choices=["numpy", "compiled"],
                        help="the range search's inner loop")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    shapes = [(max(1, int(rows * args.scale)), cols) for rows, cols in SHAPES]
    matrices = [rng.standard_normal(shape, np.float32) * 0.02 for shape in shapes]
    if args.bf16:
        from irconv.narrow_float import from_float
        from irconv.ops.deferred import DeferredProduct
        from irconv.types import ElementType

        f32 = np.dtype(np.float32)
        matrices = [DeferredProduct.widened(from_float(m, ElementType.bf16), f32) for m in matrices]  # type: ignore[misc]
    importance = [rng.gamma(1.0, 1.0, shape[1]).astype(np.float32) for shape in shapes] if args.refine else None
    scheme = primary_scheme(args.format, args.group)
    values = sum(m.size for m in matrices)
    print(f"{len(matrices)} matrices, {values / 1e6:.0f} M values, {args.format} group {args.group}"
          f"{', activation-weighted + scale estimation' if args.refine else ''}{', bf16' if args.bf16 else ''}; "
          f"{available_cores()} cores available\n")  # fmt: skip
    from irconv_transforms.weight_compression.range_kernel import compiled_offset_sums

    compiled_offset_sums()  # numba's import and the loop's compilation are not timed
    print("| loop | threads | wall s | speedup | CPU s | CPU / wall | CPU ns a value | load average | digest |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    first = None
    for loop in args.loops:
        for threads in args.threads:
            start, cpu = time.perf_counter(), time.process_time()
            digest = compress(matrices, scheme, importance, threads, compiled_offset_sums() if loop == "compiled" else None)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            first = first or seconds
            load = os.getloadavg()[0]
            print(
                f"| {loop} | {threads} | {seconds:.2f} | {first / seconds:.2f}x | {cpu:.2f} | {cpu / seconds:.2f} "
                f"| {cpu / values * 1e9:.1f} | {load:.1f} | {digest} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
