"""What a conversion imports, and what that costs: one row per model format.

Each model is converted by ``python -m irconv convert MODEL -o OUT -q`` as a fresh process.
One run under ``python -X importtime`` gives the time spent importing (the sum of the
top-level imports) and the heaviest third-party packages; ``--rounds`` plain runs give the
median wall and CPU time of the whole process. The models are small, so the figures are
mostly start-up and imports; they are made in a temporary directory with the frameworks
installed for the tests (formats whose framework is missing are skipped):

* ONNX: ``examples/tiny_cnn.onnx``, two bf16 convolutions (``bf16_cnn``), a MobileNetV2-shaped graph (3.5 M parameters) and a
  ResNet-50-shaped one (25.5 M), both built with the ``onnx`` helper API;
* a TF frozen graph (``.pb``), a Keras file, its SavedModel export and TFLite conversion;
* a ``torch.export`` program (``.pt2``); a Caffe prototxt with random weights.

    python bench/import_cost.py                   # every format, 3 rounds
    python bench/import_cost.py --formats onnx --rounds 5

``--baseline DIR`` compares with another revision of irconv checked out in DIR (e.g.
``git worktree add /tmp/base main`` or ``git archive main | tar -x -C /tmp/base``): its
``src`` folders go first on ``PYTHONPATH`` for the baseline runs, which alternate with this
checkout's, round by round, and the table gains the baseline's columns and the ratios.
The machine's load shows in the wall times; CPU times are the steadier figure.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from harness import Runs, alternating, run_process

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------- models
def _onnx_save(nodes: list[Any], inits: list[Any], out: str, shape: list[Any], path: Path) -> None:
    from onnx import TensorProto, helper

    graph = helper.make_graph(nodes, path.stem, [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    path.write_bytes(model.SerializeToString())


def mobilenet_v2(path: Path) -> list[str]:
    """A MobileNetV2-shaped graph: inverted residuals of 1x1, depthwise 3x3 and 1x1 convs."""
    from onnx import helper, numpy_helper

    rng = np.random.default_rng(0)
    nodes: list[Any] = []
    inits: list[Any] = []

    def conv(x: str, cin: int, cout: int, k: int, stride: int = 1, groups: int = 1, act: bool = True) -> str:
        name = f"conv{len(inits)}"
        weight = rng.standard_normal((cout, cin // groups, k, k), dtype=np.float32) * (2 / (cin // groups * k * k)) ** 0.5
        inits.extend([numpy_helper.from_array(weight, f"{name}.w"), numpy_helper.from_array(np.zeros(cout, np.float32),
                                                                                            f"{name}.b")])
        nodes.append(helper.make_node("Conv", [x, f"{name}.w", f"{name}.b"], [name], kernel_shape=[k, k],
                                      strides=[stride] * 2, pads=[k // 2] * 4, group=groups))
        if not act:
            return name
        nodes.append(helper.make_node("Clip", [name, "zero", "six"], [f"{name}.relu6"]))
        return f"{name}.relu6"

    inits += [numpy_helper.from_array(np.array(0, np.float32), "zero"),
              numpy_helper.from_array(np.array(6, np.float32), "six")]
    x, cin = conv("input", 3, 32, 3, 2), 32
    for t, cout, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                          (6, 320, 1, 1)]:
        for i in range(n):
            stride, hidden = s if i == 0 else 1, cin * t
            y = conv(x, cin, hidden, 1) if t != 1 else x
            y = conv(y, hidden, hidden, 3, stride, groups=hidden)
            y = conv(y, hidden, cout, 1, act=False)
            if stride == 1 and cin == cout:
                nodes.append(helper.make_node("Add", [x, y], [f"{y}.res"]))
                y = f"{y}.res"
            x, cin = y, cout
    x = conv(x, cin, 1280, 1)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    inits += [numpy_helper.from_array(rng.standard_normal((1000, 1280), dtype=np.float32) * 0.03, "fc.w"),
              numpy_helper.from_array(np.zeros(1000, np.float32), "fc.b")]
    nodes.append(helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], transB=1))
    _onnx_save(nodes, inits, "logits", [1, 3, 224, 224], path)
    return [str(path)]


def resnet50(path: Path) -> list[str]:
    from onnx_convert import resnet50 as build

    build(path)
    return [str(path)]


def tiny_cnn(path: Path) -> list[str]:
    return [str(ROOT / "examples" / "tiny_cnn.onnx")]


def bf16_cnn(path: Path) -> list[str]:
    """Two 3x3 convolutions computed in bf16 (bf16 weights, the input cast to bf16 and back)."""
    from onnx import TensorProto, helper

    rng = np.random.default_rng(0)

    def bf16(name: str, shape: tuple[int, ...]) -> Any:
        codes = (rng.standard_normal(shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        return helper.make_tensor(name, TensorProto.BFLOAT16, shape, codes.tobytes(), raw=True)

    nodes = [helper.make_node("Cast", ["input"], ["xb"], to=TensorProto.BFLOAT16),
             helper.make_node("Conv", ["xb", "w1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Cast", ["c2"], ["output"], to=TensorProto.FLOAT)]
    _onnx_save(nodes, [bf16("w1", (16, 3, 3, 3)), bf16("w2", (16, 16, 3, 3))], "output", [1, 3, 32, 32], path)
    return [str(path)]


TINY_GRAPH_DEF = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } } }
node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
"""


def tf_frozen(path: Path) -> list[str]:
    from google.protobuf import text_format
    from irconv_tf.proto import graph_pb2

    path = path.with_suffix(".pb")
    path.write_bytes(text_format.Parse(TINY_GRAPH_DEF, graph_pb2.GraphDef()).SerializeToString())
    return [str(path)]


MAKE_TF_MODELS = """
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras, tensorflow as tf
folder = sys.argv[1]
inputs = keras.Input((32, 32, 3), batch_size=1)
x = keras.layers.Conv2D(16, 3, activation="relu")(inputs)
x = keras.layers.GlobalAveragePooling2D()(x)
model = keras.Model(inputs, keras.layers.Dense(10)(x))
model.save(os.path.join(folder, "m.keras"))
model.export(os.path.join(folder, "saved"), verbose=False)
converter = tf.lite.TFLiteConverter.from_saved_model(os.path.join(folder, "saved"))
open(os.path.join(folder, "m.tflite"), "wb").write(converter.convert())
"""


def _tf_model(name: str) -> Callable[[Path], list[str]]:
    def make(path: Path) -> list[str]:
        folder = path.parent / "tf_models"
        if not folder.exists():
            folder.mkdir()
            subprocess.run([sys.executable, "-c", MAKE_TF_MODELS, str(folder)], check=True, capture_output=True)
        return [str(folder / name)]

    return make


MAKE_PT2 = """
import sys, torch
module = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3)).eval()
torch.export.save(torch.export.export(module, (torch.randn(1, 3, 32, 32),)), sys.argv[1])
"""
CAFFE_PROTOTXT = """
name: "tiny"
input: "data"
input_shape { dim: 1 dim: 3 dim: 32 dim: 32 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 16 kernel_size: 3 } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
"""


def pt2(path: Path) -> list[str]:
    path = path.with_suffix(".pt2")
    subprocess.run([sys.executable, "-c", MAKE_PT2, str(path)], check=True, capture_output=True)
    return [str(path)]


def caffe(path: Path) -> list[str]:
    from irconv_caffe.testing import write_random_caffemodel

    prototxt = path.with_suffix(".prototxt")
    prototxt.write_text(CAFFE_PROTOTXT)
    write_random_caffemodel(prototxt, path.with_suffix(".caffemodel"), seed=1)
    return [str(prototxt), "--weights", str(path.with_suffix(".caffemodel"))]


#: format -> [(model name, maker, module the maker needs)]
MODELS: dict[str, list[tuple[str, Callable[[Path], list[str]], str]]] = {
    "onnx": [("tiny_cnn", tiny_cnn, "onnx"), ("bf16_cnn", bf16_cnn, "onnx"), ("mobilenet_v2", mobilenet_v2, "onnx"),
             ("resnet50", resnet50, "onnx")],
    "tf": [("frozen_relu", tf_frozen, "irconv_tf"), ("keras_cnn", _tf_model("m.keras"), "tensorflow"),
           ("saved_model_cnn", _tf_model("saved"), "tensorflow")],
    "tflite": [("tflite_cnn", _tf_model("m.tflite"), "tensorflow")],
    "pt2": [("pt2_cnn", pt2, "torch")],
    "caffe": [("caffe_cnn", caffe, "irconv_caffe")],
}


# -------------------------------------------------------------------------- measuring
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_profile(stderr: str) -> tuple[float, list[tuple[str, float]]]:
    """Seconds spent in top-level imports, and the third-party packages costing most."""
    total, by_package = 0.0, {}
    for line in stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if not match:
            continue
        cumulative, depth, name = int(match[2]) / 1e6, len(match[3]), match[4]
        top = name.split(".")[0]
        if depth == 1:
            total += cumulative
        if top not in sys.stdlib_module_names and not top.startswith(("irconv", "_")):
            by_package[top] = max(by_package.get(top, 0.0), cumulative)
    heaviest = sorted(by_package.items(), key=lambda item: -item[1])[:3]
    return total, heaviest


def source_env(checkout: Path) -> dict[str, str]:
    """The environment that imports irconv from ``checkout``'s sources before the installed ones."""
    folders = [checkout / "core" / "src", *sorted(checkout.glob("plugins*/*/src"))]
    path = os.pathsep.join(str(f) for f in folders if f.is_dir())
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [path, os.environ.get("PYTHONPATH")]))}


def bench(name: str, args: list[str], out: Path, rounds: int, envs: dict[str, dict[str, str] | None]) -> dict[str, Any]:
    """Figures per revision (``envs``: label -> environment), their runs alternating."""
    cmd = [sys.executable, "-m", "irconv", "convert", *args, "-o", str(out / f"{name}.xml"), "-q"]
    row: dict[str, Any] = {"model": name}
    runs = {label: Runs() for label in envs}
    for label, env in envs.items():
        stderr = run_process([sys.executable, "-X", "importtime", *cmd[1:]], env=env).stderr
        row[f"{label}_imports"], heaviest = import_profile(stderr)
        row[f"{label}_heaviest"] = ", ".join(f"{p} {s:.2f}" for p, s in heaviest if s >= 0.01) or "-"
    for _, label in alternating(list(envs), rounds):
        runs[label].add(run_process(cmd, env=envs[label]))
    for label, found in runs.items():
        row[f"{label}_wall"] = found.wall
        row[f"{label}_cpu"] = found.cpu
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--formats", default=",".join(MODELS), help=f"comma-separated, of {', '.join(MODELS)}")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another irconv checkout to compare with")
    args = parser.parse_args(argv)
    import importlib.util

    envs: dict[str, dict[str, str] | None] = {"now": None}
    if args.baseline:
        envs = {"base": source_env(args.baseline.resolve()), "now": None}
    rows = []
    with tempfile.TemporaryDirectory(prefix="import_cost_") as tmp:
        work = Path(tmp)
        for fmt in args.formats.split(","):
            for name, make, needs in MODELS[fmt]:
                if importlib.util.find_spec(needs) is None:
                    print(f"{name}: skipped ({needs} is not installed)", file=sys.stderr)
                    continue
                model_args = make(work / name)
                rows.append({"format": fmt, **bench(name, model_args, work, args.rounds, envs)})
                print(f"  {name}: done", file=sys.stderr, flush=True)
    head = ["format", "model"]
    for label in envs:
        head += [f"{label} wall s", f"{label} CPU s", f"{label} imports s", f"{label} heaviest imports (s)"]
    if args.baseline:
        head += ["wall now/base", "CPU now/base"]
    print(f"\nmedians of {args.rounds} rounds; imports: top-level import time of one -X importtime run\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if h in ("format", "model") or "heaviest" in h else "---:" for h in head) + "|")
    for r in rows:
        cells = [r["format"], r["model"]]
        for label in envs:
            cells += [f"{r[f'{label}_wall']:.2f}", f"{r[f'{label}_cpu']:.2f}", f"{r[f'{label}_imports']:.2f}",
                      r[f"{label}_heaviest"]]
        if args.baseline:
            cells += [f"{r['now_wall'] / r['base_wall']:.2f}", f"{r['now_cpu'] / r['base_cpu']:.2f}"]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
