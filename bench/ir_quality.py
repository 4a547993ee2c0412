"""IR quality: irconv's IR against OpenVINO's converter (``ovc``) on real model architectures.

For each model the script converts with irconv (``convert_model`` + ``save_model``, defaults:
fusing on, fp16 weight compression) and with OpenVINO's converter (``openvino.convert_model``
+ ``openvino.save_model``, defaults: fp16 compression), then prints per model:

- the IR layer count (every ``<layer>``, Consts and decompression Converts included; and
  without the Consts) and the ``.bin`` size of each;
- the CPU latency of both IRs measured side by side in this one process: both compiled with
  the LATENCY hint, warmed up, then run alternately for ``--iterations`` rounds on the same
  input; the median of each, and the median of the per-round irconv/ovc ratios (both runs of
  a round see the same machine load). This runs twice, compiling in one order and then the
  other, and the ratios are combined by their geometric mean (the first compiled model tends
  to run slightly differently: comparing an IR with itself showed up to 2% of such bias);
- the largest difference between the two IRs' outputs (a sanity check; the conversion tests
  compare with the frameworks themselves).

Models, built here with seeded random weights:
- Keras applications (``weights=None``, random BatchNorm statistics) frozen to GraphDefs in a
  child process (TensorFlow stays out of the measuring process): MobileNetV2, ResNet50,
  MobileNetV3Small, EfficientNetB0;
- ONNX graphs written with ``onnx.helper``: a ResNet-style CNN (Conv, BatchNormalization,
  Relu, residual Adds, strided 1x1 shortcuts, global pooling, Gemm) and a two-layer
  transformer encoder (LayerNorm and GELU written out, attention as MatMul/Softmax/MatMul).

    python bench/ir_quality.py                       # every model, 200 rounds
    python bench/ir_quality.py --models ResNet50 onnx-encoder --iterations 50
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import numpy as np
from harness import alternating

KERAS = ("MobileNetV2", "ResNet50", "MobileNetV3Small", "EfficientNetB0")
ONNX = ("onnx-cnn", "onnx-encoder")

BUILD_KERAS = r"""
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np, tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
name, out = sys.argv[1], sys.argv[2]
tf.keras.utils.set_random_seed(0)
model = getattr(tf.keras.applications, name)(weights=None, input_shape=(224, 224, 3), classifier_activation=None)
rng = np.random.default_rng(0)
for layer in model.layers:
    if isinstance(layer, tf.keras.layers.BatchNormalization):
        shapes = [w.shape for w in layer.get_weights()]
        values = [rng.uniform(0.5, 1.5, s) if i in (0, 3) or len(shapes) == 2 and i == 1 else rng.uniform(-0.2, 0.2, s)
                  for i, s in enumerate(shapes)]
        layer.set_weights([v.astype(np.float32) for v in values])
spec = tf.TensorSpec([1, 224, 224, 3], tf.float32, name="input")
frozen = convert_variables_to_constants_v2(tf.function(lambda x: model(x, training=False)).get_concrete_function(spec))
open(out, "wb").write(frozen.graph.as_graph_def().SerializeToString())
"""


# ----------------------------------------------------------------------------- models
def build_keras(name: str, out: Path) -> Path:
    path = out / f"{name}.pb"
    if not path.exists():
        subprocess.run([sys.executable, "-c", BUILD_KERAS, name, str(path)], check=True)
    return path


def _onnx_save(nodes: list, inits: list, inputs: list, outputs: list, path: Path) -> Path:  # type: ignore[type-arg]
    from onnx import helper

    graph = helper.make_graph(nodes, path.stem, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


class _OnnxBuilder:
    """Appends ONNX nodes and initializers with unique names."""

    def __init__(self, seed: int) -> None:
        self.nodes: list = []  # type: ignore[type-arg]
        self.inits: list = []  # type: ignore[type-arg]
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, base: str) -> str:
        self.count += 1
        return f"{base}_{self.count}"

    def init(self, value: np.ndarray, base: str = "w") -> str:
        from onnx import numpy_helper

        name = self.name(base)
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def node(self, op: str, inputs: list[str], **attrs: object) -> str:
        from onnx import helper

        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def weights(self, *shape: int, scale: float | None = None) -> str:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        std = scale if scale is not None else float(np.sqrt(2.0 / fan_in))
        return self.init((self.rng.standard_normal(shape) * std).astype(np.float32))

    def floats(self, value: object) -> str:
        return self.init(np.asarray(value, np.float32), "c")


def build_onnx_cnn(out: Path) -> Path:
    from onnx import TensorProto, helper

    b = _OnnxBuilder(1)

    def conv_bn(x: str, cin: int, cout: int, k: int, stride: int, relu: bool = True) -> str:
        y = b.node("Conv", [x, b.weights(cout, cin, k, k)], strides=[stride, stride], pads=[k // 2] * 4)
        stats = [b.floats(b.rng.uniform(lo, hi, cout)) for lo, hi in ((0.5, 1.5), (-0.2, 0.2), (-0.2, 0.2), (0.5, 1.5))]
        y = b.node("BatchNormalization", [y, *stats], epsilon=1e-5)
        return b.node("Relu", [y]) if relu else y

    x = conv_bn("input", 3, 32, 7, 2)
    x = b.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 32
    for cout, stride in ((64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1)):
        y = conv_bn(x, cin, cout // 2, 1, 1)
        y = conv_bn(y, cout // 2, cout // 2, 3, 1)
        y = conv_bn(y, cout // 2, cout, 1, 1, relu=False)
        if stride != 1 or cin != cout:
            shortcut = conv_bn(x, cin, cout, 1, stride, relu=False)
            y = b.node("Conv", [y, b.weights(cout, cout, 1, 1)], strides=[stride, stride])
        else:
            shortcut = x
        x = b.node("Relu", [b.node("Add", [y, shortcut])])
        cin = cout
    x = b.node("Flatten", [b.node("GlobalAveragePool", [x])])
    y = b.node("Gemm", [x, b.weights(1000, cin), b.floats(np.zeros(1000))], transB=1)
    nodes = b.nodes
    nodes[-1].output[0] = "logits"
    return _onnx_save(
        nodes, b.inits,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])],
        out / "onnx-cnn.onnx",
    )


def build_onnx_encoder(out: Path, layers: int = 2, seq: int = 128, hidden: int = 256, heads: int = 4) -> Path:
    from onnx import TensorProto, helper

    b = _OnnxBuilder(2)
    head = hidden // heads
    i64 = lambda v: b.init(np.asarray(v, np.int64), "shape")  # noqa: E731

    def layer_norm(x: str) -> str:
        mean = b.node("ReduceMean", [x], axes=[-1], keepdims=1)
        d = b.node("Sub", [x, mean])
        var = b.node("ReduceMean", [b.node("Pow", [d, b.floats(2.0)])], axes=[-1], keepdims=1)
        y = b.node("Div", [d, b.node("Sqrt", [b.node("Add", [var, b.floats(1e-5)])])])
        y = b.node("Mul", [y, b.floats(b.rng.uniform(0.5, 1.5, hidden))])
        return b.node("Add", [y, b.floats(b.rng.uniform(-0.1, 0.1, hidden))])

    def dense(x: str, cin: int, cout: int) -> str:
        y = b.node("MatMul", [x, b.weights(cin, cout, scale=float(np.sqrt(1 / cin)))])
        return b.node("Add", [y, b.floats(b.rng.uniform(-0.1, 0.1, cout))])

    def heads_first(x: str) -> str:
        return b.node("Transpose", [b.node("Reshape", [x, i64([1, seq, heads, head])])], perm=[0, 2, 1, 3])

    def gelu(x: str) -> str:
        erf = b.node("Erf", [b.node("Div", [x, b.floats(np.sqrt(2.0))])])
        return b.node("Mul", [b.node("Mul", [x, b.node("Add", [erf, b.floats(1.0)])]), b.floats(0.5)])

    x = "input"
    for _ in range(layers):
        h = layer_norm(x)
        q, k, v = (heads_first(dense(h, hidden, hidden)) for _ in range(3))
        kt = b.node("Transpose", [k], perm=[0, 1, 3, 2])
        scores = b.node("Div", [b.node("MatMul", [q, kt]), b.floats(np.sqrt(head))])
        ctx = b.node("MatMul", [b.node("Softmax", [scores], axis=-1), v])
        ctx = b.node("Reshape", [b.node("Transpose", [ctx], perm=[0, 2, 1, 3]), i64([1, seq, hidden])])
        x = b.node("Add", [x, dense(ctx, hidden, hidden)])
        x = b.node("Add", [x, dense(gelu(dense(layer_norm(x), hidden, 4 * hidden)), 4 * hidden, hidden)])
    b.nodes[-1].output[0] = "output"
    return _onnx_save(
        b.nodes, b.inits,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, seq, hidden])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, seq, hidden])],
        out / "onnx-encoder.onnx",
    )


BUILDERS: dict[str, Callable[[Path], Path]] = {
    **{name: (lambda out, n=name: build_keras(n, out)) for name in KERAS},  # type: ignore[misc]
    "onnx-cnn": build_onnx_cnn,
    "onnx-encoder": build_onnx_encoder,
}


# ----------------------------------------------------------------------------- measuring
def layers_of(xml: Path) -> tuple[int, int]:
    """Layers of the IR: all of them, and those that are not ``Const``."""
    layers = ET.parse(xml).getroot().find("layers")
    if layers is None:
        return 0, 0
    return len(layers), sum(1 for layer in layers if layer.get("type") != "Const")


def convert_both(model: Path, out: Path) -> tuple[Path, Path]:
    import openvino as ov
    from irconv import convert_model, save_model

    ours = out / f"{model.stem}.irconv.xml"
    save_model(convert_model(model), ours)
    theirs = out / f"{model.stem}.ovc.xml"
    ov.save_model(ov.convert_model(str(model)), str(theirs))
    return ours, theirs


def latency(ours: Path, theirs: Path, iterations: int) -> tuple[float, float, float, float]:
    """Median ms of each IR, run alternately; the median of the per-round ratios (each round
    runs both back to back, so a ratio compares runs under the same machine load); and the
    largest output difference."""
    import openvino as ov

    core = ov.Core()
    # Deliberately the CPU's default precision: latency as users run the IRs (the header line
    # prints that precision; the output difference follows it, ~1e-2 at bf16).
    compiled = [core.compile_model(core.read_model(str(p)), "CPU", {"PERFORMANCE_HINT": "LATENCY"}) for p in (ours, theirs)]
    port = compiled[1].inputs[0]
    shape = [int(d) for d in port.get_partial_shape().to_shape()]
    x = np.random.default_rng(0).random(shape, dtype=np.float32)
    requests = [c.create_infer_request() for c in compiled]
    outputs = []
    for request in requests:
        request.infer([x])
        outputs.append(np.array(request.get_output_tensor(0).data))
    for _ in range(10):
        for request in requests:
            request.infer([x])
    times: list[list[float]] = [[], []]
    for _, k in alternating([0, 1], iterations):
        start = time.perf_counter()
        requests[k].infer([x])
        times[k].append((time.perf_counter() - start) * 1000)
    diff = float(np.abs(outputs[0] - outputs[1]).max())
    ratio = statistics.median(a / b for a, b in zip(times[0], times[1], strict=True))
    return statistics.median(times[0]), statistics.median(times[1]), ratio, diff


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=[*KERAS, *ONNX], choices=sorted(BUILDERS))
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="build models and IRs here (and reuse built models)")
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        import openvino as ov

        precision = ov.Core().get_property("CPU", "INFERENCE_PRECISION_HINT").get_type_name()
        print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, {args.iterations} rounds, "
              f"CPU default precision {precision}")
        print("| model | layers irconv | layers ovc | w/o Const irconv | w/o Const ovc | .bin MiB irconv "
              "| .bin MiB ovc | ms irconv | ms ovc | latency ratio | max output diff |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in args.models:
            model = BUILDERS[name](out)
            ours, theirs = convert_both(model, out)
            # Two passes with the compile and run order swapped: whichever model is compiled
            # first tends to run a little differently, and this cancels that out.
            half = max(args.iterations // 2, 1)
            ms_ours, ms_theirs, ratio, diff = latency(ours, theirs, half)
            ms_theirs_2, ms_ours_2, inverse, _ = latency(theirs, ours, half)
            ms_ours, ms_theirs = (ms_ours + ms_ours_2) / 2, (ms_theirs + ms_theirs_2) / 2
            ratio = float(np.sqrt(ratio / inverse))
            mib = [p.with_suffix(".bin").stat().st_size / 2**20 for p in (ours, theirs)]
            (total, compute), (their_total, their_compute) = layers_of(ours), layers_of(theirs)
            print(f"| {name} | {total} | {their_total} | {compute} | {their_compute} | {mib[0]:.2f} | {mib[1]:.2f} "
                  f"| {ms_ours:.2f} | {ms_theirs:.2f} | {ratio:.3f} | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
