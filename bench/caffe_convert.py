"""Caffe conversion benchmark: whole-process time and peak memory of ``irconv convert``.

For VGG16 (~530 MB of weights), AlexNet and ResNet-50 from ``../shared/models/caffe``, a
seeded random-weight caffemodel is written once (into ``--dir``), then ``irconv convert``
runs as its own process, with the default fp16 compression and with
``--no-compress-to-fp16``, ``--repeat`` times each (the fastest run is kept). Wall time
includes Python start-up and plugin loading; peak RSS comes from ``os.wait4`` (``bench/harness.py``). Prints a
Markdown table with the goals: under 5 s for VGG16, peak memory under 1.5 x the
caffemodel size.

    python bench/caffe_convert.py [--models vgg16,alexnet,resnet50] [--dir /tmp/caffe-bench] [--repeat 2]
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

from harness import MIB, Process, run_process

REPO = Path(__file__).resolve().parents[1]

#: What the legacy Model Optimizer took, tried as a new user would (from the issue).
LEGACY_MO_SECONDS = {"vgg16": 363, "alexnet": 152, "resnet50": 72}


def models_dir() -> Path:
    override = os.environ.get("IRCONV_CAFFE_MODELS")
    return Path(override) if override else REPO.parent / "shared" / "models" / "caffe"


def prepare(name: str, folder: Path) -> None:
    """Write the model's random caffemodel (once) and print its batch-1 ``--input`` specs.

    Runs in a child process: a child's peak RSS counts its parent's at fork time, so the
    measuring process stays small.
    """
    from irconv_caffe.prototxt import read_prototxt
    from irconv_caffe.testing import declared_input_shapes, write_random_caffemodel

    proto = models_dir() / name / "deploy.prototxt"
    weights = folder / f"{name}.caffemodel"
    if not weights.exists():
        write_random_caffemodel(proto, weights, seed=sum(map(ord, name)))
    shapes = declared_input_shapes(read_prototxt(proto), proto)
    print(json.dumps([f"{blob}[{','.join(map(str, (1, *shape[1:])))}]" for blob, shape in shapes.items()]))


def stages(proto: Path, weights: Path, inputs: list[str], out: Path, fp16: bool) -> None:
    """Per-stage seconds of one in-process conversion (runs in a child process)."""
    start = time.perf_counter()
    from irconv import ConversionOptions
    from irconv.pipeline.run import ConversionReport, convert, save
    from irconv.plugins.manager import PluginHost

    host = PluginHost()
    host.registry()
    ready = time.perf_counter()
    options = ConversionOptions.from_kwargs(weights=weights, inputs=inputs, compress_to_fp16=fp16)
    report = ConversionReport()
    graph = convert(proto, options, host, report)
    save(graph, out, options, host, report=report)
    seconds = {"startup": ready - start, **report.seconds}
    print(json.dumps(seconds))


def stage_seconds(proto: Path, weights: Path, inputs: list[str], out: Path, fp16: bool) -> dict[str, float]:
    command = [sys.executable, __file__, "--stages", json.dumps([str(proto), str(weights), inputs, str(out), fp16])]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def ensure_weights(name: str, folder: Path) -> tuple[Path, Path, list[str]]:
    made = subprocess.run(
        [sys.executable, __file__, "--prepare", name, "--dir", str(folder)], check=True, capture_output=True, text=True
    )
    return models_dir() / name / "deploy.prototxt", folder / f"{name}.caffemodel", json.loads(made.stdout)


def run_once(proto: Path, weights: Path, inputs: list[str], out: Path, fp16: bool) -> Process:
    """One ``irconv convert`` process, measured."""
    command = [sys.executable, "-m", "irconv", "convert", str(proto), "--weights", str(weights), "-o", str(out)]
    for spec in inputs:
        command += ["--input", spec]
    if not fp16:
        command.append("--no-compress-to-fp16")
    done = run_process(command, check=False)
    if done.returncode != 0:
        raise SystemExit(f"irconv convert failed on {proto}: {done.stderr}")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="vgg16,alexnet,resnet50")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "irconv-caffe-bench")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--prepare", help=argparse.SUPPRESS)
    parser.add_argument("--stages", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    if args.prepare:
        prepare(args.prepare, args.dir)
        return 0
    if args.stages:
        proto, weights, inputs, out, fp16 = json.loads(args.stages)
        stages(Path(proto), Path(weights), inputs, Path(out), fp16)
        return 0

    print(
        "| model | caffemodel MiB | fp16 | wall s | peak RSS MiB | RSS / caffemodel | start-up s | load s "
        "| extract+infer s | emit s | legacy MO s | speed-up |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        proto, weights, inputs = ensure_weights(name, args.dir)
        size = weights.stat().st_size
        for fp16 in (True, False):
            runs = [run_once(proto, weights, inputs, args.dir / f"{name}.xml", fp16) for _ in range(args.repeat)]
            seconds = min(r.wall for r in runs)
            peak = max(r.peak_rss for r in runs)
            legacy = LEGACY_MO_SECONDS.get(name)
            speedup = f"{legacy / seconds:.0f}x" if legacy else "-"
            split = stage_seconds(proto, weights, inputs, args.dir / f"{name}-stages.xml", fp16)
            middle = sum(split.get(k, 0.0) for k in ("extract", "front", "infer", "middle", "back"))
            print(
                f"| {name} | {size / MIB:.0f} | {'on' if fp16 else 'off'} | {seconds:.2f} | {peak / MIB:.0f} | "
                f"{peak / size:.2f} | {split['startup']:.2f} | {split['load']:.2f} | {middle:.2f} | "
                f"{split['emit']:.2f} | {legacy or '-'} | {speedup} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
