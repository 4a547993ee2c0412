"""Whole-process ONNX conversion: irconv vs OpenVINO's ``ovc``, wall time and peak memory.

Generates two models with the ``onnx`` helper API and random weights:

* ``resnet50``: a ResNet-50-shaped CNN (bottlenecks 3-4-6-3, ~25.5 M parameters, ~100 MB
  of f32 weights inside the ``.onnx``);
* ``transformer``: a 12-layer transformer encoder (d=2048, ffn=8704, ~2.5 GB of f32
  weights in an external-data side file), dynamic batch and sequence.

Each model is converted by ``irconv convert --no-compress-to-fp16`` and by
``ovc --compress_to_fp16=False`` as separate processes, alternating (the order flips every
round), and the script prints the median wall time, the irconv/ovc ratio and each tool's
peak RSS (``os.wait4``, through ``bench/harness.py``). Everything lives in a temporary directory removed at the end.

    python bench/onnx_convert.py                  # both models, 3 rounds each
    python bench/onnx_convert.py --models resnet50 --rounds 5
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from harness import MIB, Runs, alternating, markdown_table, run_process


class _Weights:
    """Random initializers, inline or appended to one external-data file."""

    def __init__(self, external: Path | None, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.external = external
        self.offset = 0
        self.file = open(external, "wb") if external else None
        self.initializers: list[Any] = []
        self.bytes = 0

    def add(self, name: str, *shape: int, scale: float = 0.02) -> str:
        from onnx import TensorProto, numpy_helper

        value = (self.rng.random(shape, dtype=np.float32) - 0.5) * (2 * scale)
        self.bytes += value.nbytes
        if self.file is None:
            self.initializers.append(numpy_helper.from_array(value, name))
            return name
        tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=shape)
        tensor.data_location = TensorProto.EXTERNAL
        raw = value.tobytes()
        self.file.write(raw)
        for key, text in (("location", self.external.name), ("offset", str(self.offset)), ("length", str(len(raw)))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, text
        self.offset += len(raw)
        self.initializers.append(tensor)
        return name

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def resnet50(path: Path) -> int:
    """A ResNet-50-shaped model with weights inside the file; returns the weight bytes."""
    from onnx import TensorProto, helper

    w = _Weights(None)
    nodes: list[Any] = []
    count = [0]

    def conv(x: str, cin: int, cout: int, k: int, stride: int = 1, relu: bool = True) -> str:
        count[0] += 1
        n = f"conv{count[0]}"
        wn, bn = w.add(f"{n}.w", cout, cin, k, k, scale=(2.0 / (cin * k * k)) ** 0.5), w.add(f"{n}.b", cout)
        pad = k // 2
        nodes.append(helper.make_node("Conv", [x, wn, bn], [n], kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[pad] * 4, name=n))
        if not relu:
            return n
        nodes.append(helper.make_node("Relu", [n], [f"{n}.relu"], name=f"{n}.relu"))
        return f"{n}.relu"

    x = conv("input", 3, 64, 7, 2)
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4))
    x, cin = "pool", 64
    for stage, (blocks, width) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512), strict=True)):
        for block in range(blocks):
            stride = 2 if block == 0 and stage > 0 else 1
            y = conv(x, cin, width, 1)
            y = conv(y, width, width, 3, stride)
            y = conv(y, width, width * 4, 1, relu=False)
            shortcut = conv(x, cin, width * 4, 1, stride, relu=False) if block == 0 else x
            name = f"s{stage}b{block}"
            nodes.append(helper.make_node("Add", [y, shortcut], [f"{name}.add"]))
            nodes.append(helper.make_node("Relu", [f"{name}.add"], [f"{name}.out"]))
            x, cin = f"{name}.out", width * 4
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", w.add("fc.w", 1000, 2048), w.add("fc.b", 1000)], ["logits"],
                                  transB=1))
    graph = helper.make_graph(nodes, "resnet50",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000])],
                              w.initializers)
    _save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return w.bytes


def transformer(
    path: Path, layers: int = 12, d: int = 2048, ffn: int = 8704, heads: int = 16, vocab: int = 0,
    external: bool = True,
) -> int:
    """A transformer encoder; returns the weight bytes.

    Weights go in ``<name>.onnx.data`` (``external``) or inside the ``.onnx``; with ``vocab``
    the input is token ids looked up in a ``[vocab, d]`` embedding, as in BERT.
    """
    from onnx import TensorProto, helper, numpy_helper

    w = _Weights(path.with_suffix(".onnx.data") if external else None)
    small: list[Any] = [
        numpy_helper.from_array(np.array([0, 0, heads, d // heads], np.int64), "heads_shape"),
        numpy_helper.from_array(np.array([0, 0, d], np.int64), "merge_shape"),
        numpy_helper.from_array(np.array((d // heads) ** -0.5, np.float32), "scale"),
        numpy_helper.from_array(np.array(2 ** -0.5, np.float32), "inv_sqrt2"),
        numpy_helper.from_array(np.array(1.0, np.float32), "one"),
        numpy_helper.from_array(np.array(0.5, np.float32), "half"),
    ]
    nodes: list[Any] = []
    x = "input"
    input_type, input_shape = TensorProto.FLOAT, ["B", "T", d]

    def node(op: str, inputs: list[str], out: str, **kw: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, **kw))
        return out

    def linear(x: str, name: str, cin: int, cout: int) -> str:
        y = node("MatMul", [x, w.add(f"{name}.w", cin, cout)], f"{name}.mm")
        return node("Add", [y, w.add(f"{name}.b", cout)], name)

    def norm(x: str, name: str) -> str:
        return node("LayerNormalization", [x, w.add(f"{name}.g", d, scale=1.0), w.add(f"{name}.b", d)], name, axis=-1)

    if vocab:
        x = node("Gather", [w.add("embedding", vocab, d, scale=1.0), "input"], "embedded")
        input_type, input_shape = TensorProto.INT64, ["B", "T"]
    for i in range(layers):
        p = f"l{i}"
        h = norm(x, f"{p}.ln1")
        q, k, v = (node("Transpose", [node("Reshape", [linear(h, f"{p}.{t}", d, d), "heads_shape"], f"{p}.{t}.heads")],
                        f"{p}.{t}.t", perm=[0, 2, 1, 3] if t != "k" else [0, 2, 3, 1]) for t in "qkv")
        scores = node("Mul", [node("MatMul", [q, k], f"{p}.qk"), "scale"], f"{p}.scores")
        attn = node("Softmax", [scores], f"{p}.attn", axis=-1)
        ctx = node("Transpose", [node("MatMul", [attn, v], f"{p}.av")], f"{p}.ctx.t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "merge_shape"], f"{p}.ctx")
        x = node("Add", [x, linear(ctx, f"{p}.o", d, d)], f"{p}.res1")
        h = linear(norm(x, f"{p}.ln2"), f"{p}.ff1", d, ffn)
        erf = node("Erf", [node("Mul", [h, "inv_sqrt2"], f"{p}.gelu.s")], f"{p}.gelu.erf")
        gelu = node("Mul", [node("Mul", [h, node("Add", [erf, "one"], f"{p}.gelu.a")], f"{p}.gelu.m"), "half"],
                    f"{p}.gelu")
        x = node("Add", [x, linear(gelu, f"{p}.ff2", ffn, d)], f"{p}.res2")
    out = norm(x, "final_ln")
    w.close()
    graph = helper.make_graph(nodes, "encoder",
                              [helper.make_tensor_value_info("input", input_type, input_shape)],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["B", "T", d])],
                              w.initializers + small)
    _save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return w.bytes


def _save(model: Any, path: Path) -> None:
    import onnx

    model.ir_version = 9
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    del onnx


def commands(model: Path, out_dir: Path) -> dict[str, list[str]]:
    ovc = shutil.which("ovc") or "ovc"
    return {
        "irconv": [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(out_dir / "irconv.xml"),
                   "--no-compress-to-fp16"],
        "ovc": [ovc, str(model), "--compress_to_fp16=False", "--output_model", str(out_dir / "ovc.xml")],
    }


def bench(name: str, model: Path, weight_bytes: int, rounds: int, work: Path) -> dict[str, Any]:
    out_dir = work / f"{name}_out"
    out_dir.mkdir()
    cmds = commands(model, out_dir)
    runs = {tool: Runs() for tool in cmds}
    for r, tool in alternating(list(cmds), rounds):
        done = run_process(cmds[tool])
        runs[tool].add(done)
        for f in out_dir.iterdir():
            f.unlink()
        print(f"  {name} round {r + 1} {tool}: {done.wall:.1f} s wall, {done.cpu:.1f} s cpu, "
              f"peak {done.peak_rss / MIB:.0f} MiB", flush=True)
    row = {"model": name, "weights_mib": weight_bytes / MIB, "rounds": rounds}
    for tool, found in runs.items():
        row[f"{tool}_s"] = found.wall
        row[f"{tool}_peak_mib"] = found.peak_mib
        row[f"{tool}_cpu"] = found.cpu
    row["ratio"] = row["irconv_s"] / row["ovc_s"]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="resnet50,transformer")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    parser.add_argument("--generate", nargs=2, metavar=("MODEL", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    builders = {"resnet50": resnet50, "transformer": transformer}
    if args.generate:  # in a child process, so the parent's RSS stays small for the forks
        name, path = args.generate
        print(builders[name](Path(path)))
        return 0
    work = args.keep or Path(tempfile.mkdtemp(prefix="onnx_bench_"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for name in args.models.split(","):
            model = work / f"{name}.onnx"
            start = time.perf_counter()
            size = int(subprocess.run([sys.executable, __file__, "--generate", name, str(model)], check=True,
                                      capture_output=True, text=True).stdout.split()[-1])
            print(f"{name}: {size / 2**20:.0f} MiB of weights generated in {time.perf_counter() - start:.0f} s",
                  flush=True)
            rows.append(bench(name, model, size, args.rounds, work))
            if not args.keep:
                for f in work.glob(f"{name}.onnx*"):
                    f.unlink()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print()
    headers = ["model", "weights MiB", "rounds", "irconv s", "ovc s", "irconv/ovc", "irconv cpu s", "ovc cpu s",
               "irconv peak MiB", "ovc peak MiB"]
    print(markdown_table(headers, [
        [r["model"], f"{r['weights_mib']:.0f}", r["rounds"], f"{r['irconv_s']:.1f}", f"{r['ovc_s']:.1f}",
         f"{r['ratio']:.2f}", f"{r['irconv_cpu']:.1f}", f"{r['ovc_cpu']:.1f}", f"{r['irconv_peak_mib']:.0f}",
         f"{r['ovc_peak_mib']:.0f}"] for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
