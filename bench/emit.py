"""IR emit benchmark: a graph holding 1 GiB of f32 constants, emitted with and without fp16.

Builds ``--consts`` constants of equal size (64 x 16 MiB by default), each feeding an Add
on a chain from one Parameter, and emits the graph through the IR emitter (the same
``write_ir`` the pipeline calls, under the core's atomic output files): once without and
once with fp16 compression; then reads the f32 IR back (weights memory-mapped), extracts,
infers and emits it again, and checks the files are identical. Each measurement runs in
its own child process; its peak RSS comes from ``os.wait4``. Prints a Markdown table and
checks the memory budget: peak RSS < 1.3 x constant bytes + 200 MiB.

A second table times graphs of many small nodes (``--nodes``): emit and read-back costs
per node.

    python bench/emit.py [--gib 1.0] [--consts 64] [--nodes 10000,50000] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import sys
import tempfile
import time
from pathlib import Path

from harness import run_process, self_peak_rss

MIB = 1 << 20
#: Child runs: emit f32, emit with fp16 compression, read the f32 IR back and emit it again.
MODES = {"f32": "emit, fp16 off", "f16": "emit, fp16 on", "reemit": "read f32 IR + emit"}
#: Blocks of the node-count runs: Const -> Add -> ReLU.
NODES_PER_BLOCK = 3


def child(args: argparse.Namespace) -> None:
    """Build (or read) the graph, emit it, print the figures as JSON (runs in the child process)."""
    from irconv import ConversionOptions, EmitContext
    from irconv.pipeline.output import AtomicFiles
    from irconv_ir.writer import write_ir

    directory = Path(args.dir)
    if args.mode == "nodes":
        print(json.dumps(emit_many_nodes(int(args.nodes), directory)))
        return
    start = time.perf_counter()
    if args.mode == "reemit":
        graph, const_bytes = read_back(directory / "bench_f32.xml")
        xml = directory / "bench_reemit.xml"
    else:
        graph, const_bytes = build(args.gib, args.consts)
        xml = directory / f"bench_{args.mode}.xml"
    built = time.perf_counter() - start
    rss_built = self_peak_rss()

    options = ConversionOptions(compress_to_fp16=args.mode == "f16")
    start = time.perf_counter()
    with AtomicFiles() as files:
        write_ir(graph, xml, EmitContext(options, files))
    emitted = time.perf_counter() - start
    figures = {
        "const_bytes": const_bytes,
        "build_s": built,
        "emit_s": emitted,
        "rss_built": rss_built,
        "bin_bytes": xml.with_suffix(".bin").stat().st_size,
    }
    print(json.dumps(figures))


def emit_many_nodes(count: int, directory: Path) -> dict[str, float]:
    """Emit a graph of ``count`` small nodes and read it back: the per-node costs."""
    import numpy as np
    from irconv import ConversionOptions, EmitContext, LoadContext
    from irconv.pipeline.extract import extract_graph
    from irconv.pipeline.infer import infer_graph
    from irconv.pipeline.output import AtomicFiles
    from irconv.plugins.manager import PluginHost
    from irconv.testing import GraphBuilder
    from irconv_ir.reader import load_ir
    from irconv_ir.writer import write_ir
    from irconv_opset import Add, ReLU

    b = GraphBuilder("nodes_bench")
    h = b.parameter("x", (1, 64, None, None))
    for i in range(count // NODES_PER_BLOCK):
        bias = np.full((1, 64, 1, 1), i % 1000, np.float32)  # 1000 distinct blobs, the rest shared
        h = b.op(ReLU(), b.op(Add(), h, b.const(bias)))
    b.result(h, "y")
    infer_graph(b.graph)
    options = ConversionOptions()
    xml = directory / "nodes.xml"
    start = time.perf_counter()
    with AtomicFiles() as files:
        write_ir(b.graph, xml, EmitContext(options, files))
    emitted = time.perf_counter() - start
    registry = PluginHost(strict=True).registry()
    start = time.perf_counter()
    graph = load_ir(xml, LoadContext(options, registry))
    extract_graph(graph, registry, options)
    read = time.perf_counter() - start
    figures = {"nodes": len(b.graph), "emit_s": emitted, "read_s": read, "xml_bytes": xml.stat().st_size}
    figures.update(openvino_reference(xml, directory))
    return figures


def openvino_reference(xml: Path, directory: Path) -> dict[str, float]:
    """OpenVINO's own read_model and save_model of the same IR, timed on the same machine."""
    try:
        import openvino as ov
    except ImportError:  # a test dependency only: the column stays empty without it
        return {}
    core = ov.Core()
    start = time.perf_counter()
    model = core.read_model(str(xml))
    read = time.perf_counter() - start
    start = time.perf_counter()
    ov.save_model(model, str(directory / "nodes_ov.xml"), compress_to_fp16=True)
    return {"ov_read_s": read, "ov_save_s": time.perf_counter() - start}


def build(gib: float, count: int):  # type: ignore[no-untyped-def]
    """``count`` f32 constants, ``gib`` GiB in all, each feeding an Add of a chain."""
    import numpy as np
    from irconv.pipeline.infer import infer_graph
    from irconv.testing import GraphBuilder
    from irconv_opset import Add

    elements = int(gib * 1024 * MIB) // count // 4
    b = GraphBuilder("emit_bench")
    h = b.parameter("x", (elements,))
    for i in range(count):
        # distinct values per constant so de-duplication does not shrink the work
        value = np.random.default_rng(i).random(elements, dtype=np.float32)
        h = b.op(Add(), h, b.const(value, name=f"weight{i}"))
    b.result(h, "y")
    infer_graph(b.graph)
    return b.graph, count * elements * 4


def read_back(xml: Path):  # type: ignore[no-untyped-def]
    """The IR read back (weights memory-mapped), extracted and inferred: the round trip."""
    from irconv import ConversionOptions, LoadContext
    from irconv.pipeline.extract import extract_graph
    from irconv.pipeline.infer import infer_graph
    from irconv.plugins.manager import PluginHost
    from irconv_ir.reader import load_ir

    options = ConversionOptions(compress_to_fp16=False)
    registry = PluginHost(strict=True).registry()
    graph = load_ir(xml, LoadContext(options, registry))
    extract_graph(graph, registry, options)
    infer_graph(graph)
    const_bytes = sum(n.op.value.nbytes for n in graph.nodes() if n.type == "Const")
    return graph, const_bytes


def measure(gib: float, consts: int, mode: str, directory: str, nodes: int = 0) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", mode, "--gib", str(gib), "--consts", str(consts)]
    command += ["--dir", directory, "--nodes", str(nodes)]
    done = run_process(command, check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed with exit code {done.returncode}:\n{done.stderr[-2000:]}")
    figures = json.loads(done.stdout)
    figures["peak_rss"] = done.peak_rss
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="constant bytes in GiB (default 1)")
    parser.add_argument("--consts", type=int, default=64, help="number of constants (default 64)")
    parser.add_argument("--dir", default=None, help="where to write the IR (default: a temporary directory)")
    parser.add_argument(
        "--nodes", default="10000,50000", help="node counts of the per-node runs (default 10000,50000; '' skips)"
    )
    parser.add_argument("--child", dest="mode", choices=[*MODES, "nodes"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode:
        child(args)
        return

    rows = []
    failed = False
    with tempfile.TemporaryDirectory(dir=args.dir) as directory:
        for mode in MODES:
            f = measure(args.gib, args.consts, mode, directory)
            budget = 1.3 * f["const_bytes"] + 200 * MIB
            ok = f["peak_rss"] < budget
            failed |= not ok
            rows.append(
                f"| {MODES[mode]} | {f['const_bytes'] / MIB:.0f} | {f['bin_bytes'] / MIB:.0f} "
                f"| {f['build_s']:.2f} | {f['emit_s']:.2f} | {f['const_bytes'] / MIB / f['emit_s']:.0f} "
                f"| {f['rss_built'] / MIB:.0f} | {f['peak_rss'] / MIB:.0f} | {budget / MIB:.0f} | {'yes' if ok else 'NO'} |"
            )
        first, again = Path(directory) / "bench_f32", Path(directory) / "bench_reemit"
        identical = all(
            filecmp.cmp(first.with_suffix(s), again.with_suffix(s), shallow=False) for s in (".xml", ".bin")
        )
        node_rows = []
        for count in [int(n) for n in args.nodes.split(",") if n.strip()]:
            f = measure(args.gib, args.consts, "nodes", directory, count)
            ov_save, ov_read = f.get("ov_save_s"), f.get("ov_read_s")
            node_rows.append(
                f"| {f['nodes']:.0f} | {f['xml_bytes'] / MIB:.1f} | {f['emit_s']:.2f} | {f['emit_s'] / f['nodes'] * 1e6:.0f} "
                f"| {'-' if ov_save is None else f'{ov_save:.2f}'} "
                f"| {f['read_s']:.2f} | {f['read_s'] / f['nodes'] * 1e6:.0f} "
                f"| {'-' if ov_read is None else f'{ov_read:.2f}'} |"
            )
    print(f"bench/emit.py: {args.consts} f32 constants, {args.gib:g} GiB in total, each feeding an Add\n")
    print(
        "| run | constants MiB | .bin MiB | build/read s | emit s | MiB/s "
        "| RSS before emit MiB | peak RSS MiB | budget MiB | within |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nfiles read back and re-emitted are identical to the first emit: {'yes' if identical else 'NO'}")
    if node_rows:
        print("\nPer-node costs (chains of Const -> Add -> ReLU on a [1,64,?,?] input):\n")
        print(
            "| nodes | .xml MiB | emit s | emit us/node | OpenVINO save_model s "
            "| read + extract s | read us/node | OpenVINO read_model s |"
        )
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(node_rows))
    if failed:
        raise SystemExit("peak RSS exceeded 1.3 x constant bytes + 200 MiB")
    if not identical:
        raise SystemExit("the read-back IR was not re-emitted identically")


if __name__ == "__main__":
    main()
