"""Whole-process TensorFlow conversion: irconv vs OpenVINO's ``ovc``, wall time and peak memory.

Builds Keras ResNet50 (``weights=None``, seeded random weights) in a child process and saves
it as a frozen GraphDef (``resnet50.pb``) and as a SavedModel directory. Each form is then
converted by ``irconv convert --no-compress-to-fp16`` and by ``ovc --compress_to_fp16=False``
as separate processes, alternating (the order flips every round); the script prints the
median wall time, the irconv/ovc ratio and each tool's peak RSS (``os.wait4``, the child's
``ru_maxrss``, through ``bench/harness.py``). Everything lives in a temporary directory removed at the end.

    python bench/tf_convert.py               # 5 rounds
    python bench/tf_convert.py --rounds 9 --keep /tmp/tf_bench
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import ProcessFailed, Runs, alternating, run_process

BUILD = r"""
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np, tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
out = sys.argv[1]
tf.keras.utils.set_random_seed(0)
model = tf.keras.applications.ResNet50(weights=None, classifier_activation=None, input_shape=(224, 224, 3))
spec = tf.TensorSpec([1, 224, 224, 3], tf.float32, name="input")
frozen = convert_variables_to_constants_v2(tf.function(lambda x: model(x, training=False)).get_concrete_function(spec))
open(os.path.join(out, "resnet50.pb"), "wb").write(frozen.graph.as_graph_def().SerializeToString())
tf.saved_model.save(model, os.path.join(out, "resnet50_saved_model"))
model.export(os.path.join(out, "resnet50_exported"))
"""


def tool_error(exc: ProcessFailed) -> str:
    """A failed converter's last informative stderr lines (TensorFlow's log lines left out)."""
    lines = [line for line in exc.stderr.splitlines() if line.strip() and "WARNING" not in line and "I0000" not in line]
    return " / ".join(lines[-3:])[:300]


def tools(model: Path, out: Path) -> dict[str, list[str]]:
    irconv = [
        sys.executable,
        "-m",
        "irconv",
        "convert",
        str(model),
        "-o",
        str(out / "irconv.xml"),
        "--no-compress-to-fp16",
    ]
    ovc = [shutil.which("ovc") or "ovc", str(model), "--output_model", str(out / "ovc.xml"), "--compress_to_fp16=False"]
    return {"irconv": irconv, "ovc": ovc}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the models here and keep them")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="tf_bench_"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if not (work / "resnet50.pb").exists():
            subprocess.run([sys.executable, "-c", BUILD, str(work)], check=True)
        forms = {
            "frozen .pb": work / "resnet50.pb",
            "SavedModel (tf.saved_model.save)": work / "resnet50_saved_model",
            "SavedModel (model.export)": work / "resnet50_exported",
        }
        print("| model | tool | median s | runs s | ratio irconv/ovc | peak RSS MiB |")
        print("|---|---|---|---|---|---|")
        for form, model in forms.items():
            out = work / "out"
            out.mkdir(exist_ok=True)
            commands = tools(model, out)
            runs = {name: Runs() for name in commands}
            failed: dict[str, str] = {}
            for _, name in alternating(list(commands), args.rounds):
                if name in failed:
                    continue
                try:
                    runs[name].add(run_process(commands[name]))
                except ProcessFailed as exc:
                    failed[name] = tool_error(exc)
            for name, message in failed.items():
                print(f"| ResNet50 {form} | {name} | fails | {message} | | |")
            medians = {name: found.wall for name, found in runs.items() if found.walls}
            for name in medians:
                both = "irconv" in medians and "ovc" in medians
                ratio = f"{medians['irconv'] / medians['ovc']:.2f}" if name == "irconv" and both else ""
                walls = ", ".join(f"{t:.2f}" for t in runs[name].walls)
                print(f"| ResNet50 {form} | {name} | {medians[name]:.2f} | {walls} | {ratio} | "
                      f"{runs[name].peak_mib:.0f} |")
            sys.stdout.flush()
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
