"""Bigger than memory: a decoder whose f32 weights exceed the machine's RAM, converted to int4.

Writes a Llama-shaped decoder (Llama-7B's layer: hidden 4096, 32 heads, MLP 11008,
vocabulary 32000; as many layers as it takes for ``--times`` the machine's RAM) straight to
ONNX with its weights in one external data file of seeded random f32 values, block by block
(no framework holds the model). Then it

1. times reading those bytes once and writing the IR's ``.bin`` bytes once (page cache
   dropped for the file first, written data synced), the floor any conversion has to pay;
2. runs ``irconv convert --stateful --weight-format int4-sym`` as its own process: wall and CPU time
   and peak RSS (``os.wait4``'s ``ru_maxrss``, the converter alone, whatever else runs);
3. with ``--run``, reads the IR with OpenVINO and generates two tokens on CPU (the IR is valid
   and runs, nothing more is checked on random weights).

Every generated file is deleted at the end, also when a step fails. A documented command,
not a test (it writes more than the machine's RAM to disk):

    python bench/llm_bigger_than_memory.py [--dir /tmp/llm-bigger] [--times 1.2] [--layers N] [--run]

The graph: embedding Gather; per layer RMSNorm, Q/K/V projections, the past cache
concatenated (``past_key_values.N.key/value`` in, ``present.N.key/value`` out), attention
with the padding mask (no causal mask, no rotary: a synthetic model), output projection,
RMSNorm, SiLU-gated MLP, residuals; final RMSNorm and LM head. Weights are stored
``[in, out]`` as PyTorch's exporters store them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

MIB = 1 << 20
GIB = 1 << 30
HIDDEN, HEADS, MLP, VOCAB = 4096, 32, 11008, 32000
BLOCK = 64 * MIB  # bytes generated, written or read at a time


def ram_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def layer_bytes() -> int:
    return 4 * (4 * HIDDEN * HIDDEN + 3 * HIDDEN * MLP + 2 * HIDDEN)


def layers_for(target: int) -> int:
    fixed = 4 * (2 * VOCAB * HIDDEN + HIDDEN)
    return max(1, -(-(target - fixed) // layer_bytes()))


def drop_cache(path: Path) -> None:
    """Evict ``path``'s clean pages from the page cache (so the next read comes from disk)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


class WeightWriter:
    """Appends seeded random f32 tensors to one external data file, synced and evicted from
    the page cache as it goes (the file is bigger than memory).

    Values come from a pool of ``2 * BLOCK`` bytes of normal values drawn once, each block a
    window of it at a random offset: drawing 30 GB of normals would cost more CPU time than
    the conversion measured."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = open(path, "wb")  # noqa: SIM115 - closed by close(), written across calls
        self.offset = 0
        self.rng = np.random.default_rng(0)
        self.pool = self.rng.standard_normal(2 * BLOCK // 4, dtype=np.float32)
        self.unsynced = 0

    def tensor(self, name: str, shape: tuple[int, ...], std: float, mean: float = 0.0):
        import onnx

        count = int(np.prod(shape))
        start = self.offset
        per_block = BLOCK // 4
        for first in range(0, count, per_block):
            size = min(per_block, count - first)
            at = int(self.rng.integers(0, per_block))
            self.file.write((self.pool[at : at + size] * std + mean).tobytes())
            self.unsynced += 4 * size
            if self.unsynced >= 16 * BLOCK:
                self.file.flush()
                os.fdatasync(self.file.fileno())
                os.posix_fadvise(self.file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
                self.unsynced = 0
        self.offset += 4 * count
        tensor = onnx.TensorProto(name=name, data_type=onnx.TensorProto.FLOAT, dims=shape)
        tensor.data_location = onnx.TensorProto.EXTERNAL
        for key, value in (("location", self.path.name), ("offset", str(start)), ("length", str(4 * count))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        return tensor

    def close(self) -> None:
        self.file.flush()
        os.fdatasync(self.file.fileno())
        os.posix_fadvise(self.file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        self.file.close()


def build(directory: Path, layers: int) -> Path:
    """The decoder's ``.onnx`` (graph) and ``weights.bin`` (external data) in ``directory``."""
    import onnx
    from onnx import TensorProto, helper

    head_dim = HIDDEN // HEADS
    weights = WeightWriter(directory / "weights.bin")
    nodes: list[onnx.NodeProto] = []
    initializers: list[onnx.TensorProto] = []
    counter = iter(range(1 << 30))

    def node(op: str, *inputs: str, **attrs) -> str:
        out = f"{op.lower()}_{next(counter)}"
        nodes.append(helper.make_node(op, list(inputs), [out], **attrs))
        return out

    def const(name: str, value: np.ndarray) -> str:
        initializers.append(onnx.numpy_helper.from_array(value, name))
        return name

    def weight(name: str, shape: tuple[int, ...], std: float = 0.02, mean: float = 0.0) -> str:
        initializers.append(weights.tensor(name, shape, std, mean))
        return name

    const("eps", np.array(1e-6, np.float32))
    const("one", np.array(1.0, np.float32))
    const("minus_inf", np.array(-1e9, np.float32))
    const("scale", np.array(head_dim**-0.5, np.float32))
    const("heads_shape", np.array([0, 0, HEADS, head_dim], np.int64))
    const("hidden_shape", np.array([0, 0, HIDDEN], np.int64))
    const("mask_axes", np.array([1, 2], np.int64))

    def rms_norm(x: str, name: str) -> str:
        variance = node("ReduceMean", node("Mul", x, x), axes=[-1], keepdims=1)
        normalized = node("Mul", x, node("Reciprocal", node("Sqrt", node("Add", variance, "eps"))))
        return node("Mul", normalized, weight(f"{name}.weight", (HIDDEN,), 0.02, 1.0))

    def heads(x: str) -> str:
        return node("Transpose", node("Reshape", x, "heads_shape"), perm=[0, 2, 1, 3])

    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total"]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "sequence", VOCAB])]
    mask = node("Cast", "attention_mask", to=TensorProto.FLOAT)
    mask_bias = node("Unsqueeze", node("Mul", node("Sub", "one", mask), "minus_inf"), "mask_axes")

    x = node("Gather", weight("embed_tokens.weight", (VOCAB, HIDDEN)), "input_ids")
    for i in range(layers):
        prefix = f"layers.{i}"
        h = rms_norm(x, f"{prefix}.input_layernorm")
        q = heads(node("MatMul", h, weight(f"{prefix}.q_proj", (HIDDEN, HIDDEN))))
        cache = {}
        for kind, proj in (("key", "k_proj"), ("value", "v_proj")):
            past = f"past_key_values.{i}.{kind}"
            present = f"present.{i}.{kind}"
            shape = ["batch", HEADS, "past", head_dim]
            inputs.append(helper.make_tensor_value_info(past, TensorProto.FLOAT, shape))
            outputs.append(
                helper.make_tensor_value_info(present, TensorProto.FLOAT, ["batch", HEADS, "total", head_dim])
            )
            new = heads(node("MatMul", h, weight(f"{prefix}.{proj}", (HIDDEN, HIDDEN))))
            nodes.append(helper.make_node("Concat", [past, new], [present], axis=2))
            cache[kind] = present
        scores = node("MatMul", q, node("Transpose", cache["key"], perm=[0, 1, 3, 2]))
        scores = node("Add", node("Mul", scores, "scale"), mask_bias)
        attended = node("MatMul", node("Softmax", scores, axis=-1), cache["value"])
        merged = node("Reshape", node("Transpose", attended, perm=[0, 2, 1, 3]), "hidden_shape")
        x = node("Add", x, node("MatMul", merged, weight(f"{prefix}.o_proj", (HIDDEN, HIDDEN))))
        h = rms_norm(x, f"{prefix}.post_attention_layernorm")
        gate = node("MatMul", h, weight(f"{prefix}.gate_proj", (HIDDEN, MLP)))
        up = node("MatMul", h, weight(f"{prefix}.up_proj", (HIDDEN, MLP)))
        gated = node("Mul", node("Mul", gate, node("Sigmoid", gate)), up)
        x = node("Add", x, node("MatMul", gated, weight(f"{prefix}.down_proj", (MLP, HIDDEN))))
    logits = node("MatMul", rms_norm(x, "norm"), weight("lm_head", (HIDDEN, VOCAB)))
    nodes.append(helper.make_node("Identity", [logits], ["logits"]))
    weights.close()
    graph = helper.make_graph(nodes, "bigger_than_memory", inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = directory / "decoder.onnx"
    onnx.save(model, str(path))
    return path


def read_once(path: Path) -> float:
    """Seconds to read ``path`` sequentially from disk (its cached pages dropped first)."""
    drop_cache(path)
    buffer = bytearray(BLOCK)
    start = time.perf_counter()
    with open(path, "rb", buffering=0) as file:
        while file.readinto(buffer):
            pass
    seconds = time.perf_counter() - start
    drop_cache(path)
    return seconds


def write_once(path: Path, size: int) -> float:
    """Seconds to write ``size`` bytes to ``path`` and sync them (the file is removed)."""
    block = np.random.default_rng(1).integers(0, 256, BLOCK, dtype=np.uint8).tobytes()
    start = time.perf_counter()
    with open(path, "wb", buffering=0) as file:
        for first in range(0, size, BLOCK):
            file.write(block[: min(BLOCK, size - first)])
        os.fdatasync(file.fileno())
    seconds = time.perf_counter() - start
    path.unlink()
    return seconds


def convert(model: Path, xml: Path) -> tuple[float, float, float]:
    """``irconv convert --stateful --weight-format int4-sym`` in its own process: (seconds,
    CPU seconds, peak RSS in bytes)."""
    command = [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(xml), "--stateful"]
    return run_measured(command + ["--weight-format", "int4-sym"])


def run_measured(command: list[str]) -> tuple[float, float, float]:
    """``command`` in its own process: (seconds, CPU seconds, peak RSS in bytes)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status:
        raise SystemExit(f"the conversion failed (status {status}): {' '.join(command)}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def generate(xml: Path) -> list[int]:
    """Two greedy tokens from the stateful IR on CPU, batch 1."""
    from irconv.runtime import compile_for_comparison

    request = compile_for_comparison(xml).create_infer_request()
    feeds = {
        "input_ids": np.array([[1]]),
        "attention_mask": np.ones((1, 1), np.int64),
        "beam_idx": np.zeros(1, np.int32),
    }
    tokens = []
    for step in range(2):
        request.infer(feeds)
        tokens.append(int(request.get_tensor("logits").data[0, -1].argmax()))
        feeds = feeds | {"input_ids": np.array([[tokens[-1]]]), "attention_mask": np.ones((1, step + 2), np.int64)}
    return tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/llm-bigger"))
    parser.add_argument("--times", type=float, default=1.2, help="f32 weights as a multiple of the RAM")
    parser.add_argument("--layers", type=int, help="this many layers instead (a quick check of the script)")
    parser.add_argument("--run", action="store_true", help="also generate two tokens from the IR on CPU")
    args = parser.parse_args()
    ram = ram_bytes()
    layers = args.layers or layers_for(int(args.times * ram))
    data = layers * layer_bytes() + 4 * (2 * VOCAB * HIDDEN + HIDDEN)
    if args.dir.exists():
        raise SystemExit(f"{args.dir} exists: give a new --dir (it is deleted at the end)")
    args.dir.mkdir(parents=True)
    try:
        free = shutil.disk_usage(args.dir).free
        if free < data * 1.25 + 2 * GIB:
            raise SystemExit(f"{args.dir}: {free / GIB:.1f} GiB free, {data * 1.25 / GIB + 2:.1f} GiB needed")
        print(
            f"RAM {ram / GIB:.2f} GiB; {layers} layers, f32 external data {data / GIB:.2f} GiB ({data / ram:.2f}x RAM)"
        )
        start = time.perf_counter()
        model = build(args.dir, layers)
        print(f"written in {time.perf_counter() - start:.0f} s")
        xml = args.dir / "decoder.xml"
        seconds, cpu, peak = convert(model, xml)
        size = xml.with_suffix(".bin").stat().st_size
        print(
            f"converted in {seconds:.0f} s ({cpu:.0f} s CPU), peak RSS {peak / MIB:.0f} MiB, .bin {size / GIB:.2f} GiB"
        )
        read = read_once(args.dir / "weights.bin")
        write = write_once(args.dir / "write_once.tmp", size)
        print()
        print(
            "| f32 data GiB | x RAM | int4 .bin GiB | convert s | convert CPU s | peak RSS MiB | read data once s | write .bin once s |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        print(
            f"| {data / GIB:.1f} | {data / ram:.2f} | {size / GIB:.2f} | {seconds:.0f} | {cpu:.0f} | {peak / MIB:.0f} "
            f"| {read:.0f} | {write:.0f} |",
            flush=True,
        )
        if args.run:
            start = time.perf_counter()
            print(f"\ngenerated {generate(xml)} in {time.perf_counter() - start:.0f} s (compile included)")
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
