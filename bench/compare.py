"""irconv against OpenVINO's ``ovc`` on the benchmark models, as whole processes, in one table.

Builds (or reuses, with ``--keep DIR``) the models, each in a child process:

* ``resnet50-tf``: Keras ResNet50 (random weights) frozen to a GraphDef, about 100 MB;
* ``bert-base-onnx``: a BERT-base-shaped encoder (12 layers, d=768, ffn=3072, 30522-token
  embedding), about 440 MB of f32 weights inside the ``.onnx``;
* ``transformer-2g-onnx``: a 12-layer d=2048 encoder with 2.4 GB of weights in external data;
* ``vgg16-caffe``: VGG16 from ``../shared/models/caffe`` with a random 528 MB caffemodel
  (``ovc`` has no Caffe reader: irconv alone, against the 3 s goal);
* ``synthetic-300k-onnx``: 75,000 blocks of ``Relu(x * Sigmoid(x) + b)`` on a [1, 16] tensor,
  300,000 ONNX nodes (and 75,000 small initializers): conversion cost per node. It takes
  about a minute per conversion per tool; ``--scale-rounds`` sets its rounds.

Each model is converted by ``irconv convert`` and ``ovc`` alternately (the order flips
every round), fp16 compression on (both tools' default) unless ``--no-fp16``; the table
gives median wall time of ``--rounds`` runs, the irconv/ovc ratio, each tool's peak RSS and
irconv's peak against the bound 1.3 x weights + 200 MiB. Then irconv's start-up CPU time
(``--version``, ``--help``, ``plugins``) and the 10k -> 300k node graph-scale ratio.

    python bench/compare.py                       # everything, 5 rounds
    python bench/compare.py --models resnet50-tf,vgg16-caffe --rounds 3 --keep /tmp/bench
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import caffe_convert
import onnx_convert
import tf_convert
from harness import MIB, Runs, alternating, run_process

HERE = Path(__file__).resolve().parent


def _bert_base(path: Path) -> int:
    return onnx_convert.transformer(path, layers=12, d=768, ffn=3072, heads=12, vocab=30522, external=False)


def _build_tf(work: Path) -> tuple[Path, int]:
    model = work / "resnet50.pb"
    if not model.exists():
        subprocess.run([sys.executable, "-c", tf_convert.BUILD, str(work)], check=True, capture_output=True)
    return model, model.stat().st_size


def _build_onnx(builder: str) -> Callable[[Path], tuple[Path, int]]:
    def build(work: Path) -> tuple[Path, int]:
        model = work / f"{builder}.onnx"
        if not model.exists():
            out = subprocess.run([sys.executable, __file__, "--generate", builder, str(model)], check=True,
                                 capture_output=True, text=True)
            (work / f"{builder}.size").write_text(out.stdout.split()[-1])
        return model, int((work / f"{builder}.size").read_text())

    return build


def _synthetic_chain(path: Path, blocks: int = 75_000) -> int:
    """``blocks`` x (Sigmoid, Mul, Add of a 16-value bias, Relu): 4 nodes per block."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, initializers, x = [], [], "x"
    for i in range(blocks):
        bias = numpy_helper.from_array(np.full([16], (i % 7) * 0.01, np.float32), f"b{i}")
        initializers.append(bias)
        nodes += [
            helper.make_node("Sigmoid", [x], [f"s{i}"]),
            helper.make_node("Mul", [x, f"s{i}"], [f"m{i}"]),
            helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"]),
            helper.make_node("Relu", [f"a{i}"], [f"r{i}"]),
        ]
        x = f"r{i}"
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 16]) for n in ("x", x)]
    graph = helper.make_graph(nodes, "synthetic", io[:1], io[1:], initializers)
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return blocks * 16 * 4


def _build_vgg16(work: Path) -> tuple[Path, int]:
    out = subprocess.run([sys.executable, caffe_convert.__file__, "--prepare", "vgg16", "--dir", str(work)],
                         check=True, capture_output=True, text=True)
    (work / "vgg16.inputs").write_text(out.stdout)
    weights = work / "vgg16.caffemodel"
    return weights, weights.stat().st_size


MODELS: dict[str, Callable[[Path], tuple[Path, int]]] = {
    "resnet50-tf": _build_tf,
    "bert-base-onnx": _build_onnx("bert"),
    "transformer-2g-onnx": _build_onnx("transformer"),
    "vgg16-caffe": _build_vgg16,
    "synthetic-300k-onnx": _build_onnx("synthetic"),
}
GENERATORS = {"bert": _bert_base, "transformer": onnx_convert.transformer, "synthetic": _synthetic_chain}
#: Models whose conversions take long enough that ``--scale-rounds`` sets their rounds.
LONG = ("synthetic-300k-onnx",)


def commands(name: str, model: Path, out: Path, fp16: bool, work: Path) -> dict[str, list[str]]:
    irconv = [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(out / "irconv.xml")]
    if not fp16:
        irconv.append("--no-compress-to-fp16")
    if name == "vgg16-caffe":
        proto = caffe_convert.models_dir() / "vgg16" / "deploy.prototxt"
        irconv = [*irconv[:4], str(proto), "--weights", str(model), *irconv[5:]]
        for spec in json.loads((work / "vgg16.inputs").read_text()):
            irconv += ["--input", spec]
        return {"irconv": irconv}
    ovc = [shutil.which("ovc") or "ovc", str(model), "--output_model", str(out / "ovc.xml"),
           f"--compress_to_fp16={fp16}"]
    return {"irconv": irconv, "ovc": ovc}


def measure(name: str, rounds: int, fp16: bool, work: Path) -> dict[str, object]:
    model, weight_bytes = MODELS[name](work)
    out = work / f"{name}_out"
    out.mkdir(exist_ok=True)
    cmds = commands(name, model, out, fp16, work)
    runs = {tool: Runs() for tool in cmds}
    for _, tool in alternating(list(cmds), rounds):
        runs[tool].add(run_process(cmds[tool]))
        for f in out.iterdir():
            f.unlink()
    row: dict[str, object] = {"model": name, "weights_mib": weight_bytes / MIB, "rounds": rounds}
    for tool, found in runs.items():
        row[f"{tool}_s"] = found.wall
        row[f"{tool}_peak_mib"] = found.peak_mib
    row["bound_mib"] = 1.3 * weight_bytes / MIB + 200
    return row


def startup() -> dict[str, tuple[float, float]]:
    """(CPU seconds (user + system), wall seconds) of short commands, best of five each;
    the last converts the bundled example model."""
    tiny = HERE.parent / "examples" / "tiny_cnn.onnx"
    result = {}
    with tempfile.TemporaryDirectory() as out:
        convert = ["convert", str(tiny), "-o", str(Path(out) / "m.xml")]
        for args in (["--version"], ["--help"], ["plugins"], convert):
            runs = [run_process([sys.executable, "-m", "irconv", *args]) for _ in range(5)]
            shown = [a if a != str(tiny) else "examples/tiny_cnn.onnx" for a in args[:2]]
            result["irconv " + " ".join(shown)] = (min(p.cpu for p in runs), min(p.wall for p in runs))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scale-rounds", type=int, default=5, help="rounds of the 300k-node model")
    parser.add_argument("--no-fp16", action="store_true", help="both tools without fp16 compression")
    parser.add_argument("--keep", type=Path, help="build the models here and keep them")
    parser.add_argument("--skip-scale", action="store_true", help="skip the graph-scale run")
    parser.add_argument("--generate", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate:  # in a child: the measuring parent stays small
        print(GENERATORS[args.generate[0]](Path(args.generate[1])))
        return 0
    # Measure what a user runs: bytecode cached (some sandboxes disable it), caches warm.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "irconv", "plugins"], check=True, capture_output=True)
    work = args.keep or Path(tempfile.mkdtemp(prefix="irconv_compare_"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for name in args.models.split(","):
            start = time.perf_counter()
            rounds = args.scale_rounds if name in LONG else args.rounds
            rows.append(measure(name, rounds, not args.no_fp16, work))
            print(f"{name}: done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"fp16 compression {'off' if args.no_fp16 else 'on'}, median of alternating runs\n")
    print("| model | weights MiB | rounds | irconv s | ovc s | irconv/ovc | irconv peak MiB | ovc peak MiB | bound MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ovc_s = r.get("ovc_s")
        ratio = f"{r['irconv_s'] / ovc_s:.2f}" if ovc_s else "-"  # type: ignore[operator]
        ovc_cells = f"{ovc_s:.2f} | {ratio} " if ovc_s else "- | - "
        ovc_peak = f"{r['ovc_peak_mib']:.0f}" if ovc_s else "-"
        print(f"| {r['model']} | {r['weights_mib']:.0f} | {r['rounds']} | {r['irconv_s']:.2f} | {ovc_cells}| "
              f"{r['irconv_peak_mib']:.0f} | {ovc_peak} | {r['bound_mib']:.0f} |")
    print("\n| command | CPU s (best of 5) | wall s (best of 5) |\n|---|---:|---:|")
    for command, (cpu, wall) in startup().items():
        print(f"| `{command}` | {cpu:.2f} | {wall:.2f} |")
    if not args.skip_scale:
        print()
        subprocess.run([sys.executable, str(HERE / "graph_scale.py"), "--sizes", "10000,300000"], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
