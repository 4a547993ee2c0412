"""IR emit benchmark: a graph holding 1 GiB of f32 constants, emitted with and without fp16.

Builds ``--consts`` constants of equal size (64 x 16 MiB by default), each feeding an Add
on a chain from one Parameter, and emits the graph through the IR emitter (the same
``write_ir`` the pipeline calls, under the core's atomic output files). Each measurement
runs in its own child process; its peak RSS comes from ``os.wait4``. Prints a Markdown
table and checks the memory budget: peak RSS < 1.3 x constant bytes + 200 MiB.

    python bench/emit.py [--gib 1.0] [--consts 64] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIB = 1 << 20


def child(args: argparse.Namespace) -> None:
    """Build the graph, emit it, print the figures as JSON (runs in the child process)."""
    import resource

    import numpy as np
    from irconv.pipeline.context import EmitContext
    from irconv.pipeline.infer import infer_graph
    from irconv.pipeline.options import ConversionOptions
    from irconv.pipeline.output import AtomicFiles
    from irconv.testing import GraphBuilder
    from irconv_ir.writer import write_ir
    from irconv_opset import Add

    total = int(args.gib * 1024 * MIB)
    count = args.consts
    elements = total // count // 4
    start = time.perf_counter()
    b = GraphBuilder("emit_bench")
    h = b.parameter("x", (elements,))
    for i in range(count):
        # distinct values per constant so de-duplication does not shrink the work
        value = np.random.default_rng(i).random(elements, dtype=np.float32)
        h = b.op(Add(), h, b.const(value, name=f"weight{i}"))
    b.result(h, "y")
    infer_graph(b.graph)
    built = time.perf_counter() - start
    rss_built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    options = ConversionOptions(compress_to_fp16=args.fp16)
    xml = Path(args.dir) / "bench.xml"
    start = time.perf_counter()
    with AtomicFiles() as files:
        ctx = EmitContext(options, files)
        write_ir(b.graph, xml, ctx)
    emitted = time.perf_counter() - start
    bin_size = xml.with_suffix(".bin").stat().st_size
    print(
        json.dumps(
            {
                "const_bytes": count * elements * 4,
                "build_s": built,
                "emit_s": emitted,
                "rss_built": rss_built,
                "bin_bytes": bin_size,
            }
        )
    )


def measure(gib: float, consts: int, fp16: bool, directory: str) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", "--gib", str(gib), "--consts", str(consts), "--dir", directory]
    if fp16:
        command.append("--fp16")
    process = subprocess.Popen(command, stdout=subprocess.PIPE)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"benchmark child failed with exit code {process.returncode}")
    figures = json.loads(output)
    figures["peak_rss"] = usage.ru_maxrss * 1024
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="constant bytes in GiB (default 1)")
    parser.add_argument("--consts", type=int, default=64, help="number of constants (default 64)")
    parser.add_argument("--dir", default=None, help="where to write the IR (default: a temporary directory)")
    parser.add_argument("--fp16", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    rows = []
    failed = False
    with tempfile.TemporaryDirectory(dir=args.dir) as directory:
        for fp16 in (False, True):
            f = measure(args.gib, args.consts, fp16, directory)
            budget = 1.3 * f["const_bytes"] + 200 * MIB
            ok = f["peak_rss"] < budget
            failed |= not ok
            rows.append(
                f"| {'on' if fp16 else 'off'} | {f['const_bytes'] / MIB:.0f} | {f['bin_bytes'] / MIB:.0f} "
                f"| {f['emit_s']:.2f} | {f['const_bytes'] / MIB / f['emit_s']:.0f} | {f['rss_built'] / MIB:.0f} "
                f"| {f['peak_rss'] / MIB:.0f} | {budget / MIB:.0f} | {'yes' if ok else 'NO'} |"
            )
    print(f"bench/emit.py: {args.consts} f32 constants, {args.gib:g} GiB in total, each feeding an Add\n")
    print(
        "| fp16 | constants MiB | .bin MiB | emit s | MiB/s | RSS after build MiB | peak RSS MiB | budget MiB | within |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    if failed:
        raise SystemExit("peak RSS exceeded 1.3 x constant bytes + 200 MiB")


if __name__ == "__main__":
    main()
