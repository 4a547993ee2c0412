"""Bigger than memory from a Hugging Face folder: a Llama checkpoint whose bf16 safetensors
exceed the machine's RAM, converted to an OpenVINO GenAI folder with int4 weights.

Writes a Llama-3-8B-shaped checkpoint (hidden 4096, 32 heads with 8 KV heads, MLP 14336,
vocabulary 32000; as many layers as it takes for ``--times`` the machine's RAM) as
``save_pretrained`` lays it out: ``config.json``, one bf16 safetensors shard per layer written
one at a time (seeded random values drawn from a pool), their index, and a small BPE
tokenizer. Then it

1. times reading the shards once and writing the IR's ``.bin`` bytes once (page cache
   dropped for each shard first, written data synced): the floor any conversion pays;
2. runs ``irconv convert DIR -o OUT/ --weight-format int4-sym`` as its own process: wall and
   CPU time (``os.wait4``, its worker process included) and peak RSS: the largest of the
   process's and its worker's (``os.wait4``'s ``ru_maxrss``) and the peak of their sum
   (sampled every 0.1 s from ``/proc``);
3. with ``--run``, loads the folder with OpenVINO GenAI's LLMPipeline and generates two tokens;
4. counts the compressed matrices of the first two layers that hold only zeros (none should).

With ``--compare TREE`` the checkpoint is also converted by the irconv sources of another
checkout (an earlier commit: its ``*/src`` folders first on ``PYTHONPATH``), in turns with
this one, a row each. Every file it made is deleted at the end, also when a step fails:

    python bench/hf_bigger_than_memory.py [--dir /tmp/hf-bigger] [--times 1.05] [--layers N] [--run]
        [--compare TREE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from llm_bigger_than_memory import drop_cache, ram_bytes, write_once  # noqa: E402

GIB = 1 << 30
HIDDEN, HEADS, KV_HEADS, MLP, VOCAB = 4096, 32, 8, 14336, 32000
HEAD_DIM = HIDDEN // HEADS


def layer_shapes(i: int) -> dict[str, tuple[int, ...]]:
    p = f"model.layers.{i}"
    kv = KV_HEADS * HEAD_DIM
    return {
        f"{p}.input_layernorm.weight": (HIDDEN,), f"{p}.post_attention_layernorm.weight": (HIDDEN,),
        f"{p}.self_attn.q_proj.weight": (HIDDEN, HIDDEN), f"{p}.self_attn.k_proj.weight": (kv, HIDDEN),
        f"{p}.self_attn.v_proj.weight": (kv, HIDDEN), f"{p}.self_attn.o_proj.weight": (HIDDEN, HIDDEN),
        f"{p}.mlp.gate_proj.weight": (MLP, HIDDEN), f"{p}.mlp.up_proj.weight": (MLP, HIDDEN),
        f"{p}.mlp.down_proj.weight": (HIDDEN, MLP),
    }


def outer_shapes() -> dict[str, tuple[int, ...]]:
    return {"model.embed_tokens.weight": (VOCAB, HIDDEN), "model.norm.weight": (HIDDEN,),
            "lm_head.weight": (VOCAB, HIDDEN)}


def nbytes(shapes: dict[str, tuple[int, ...]]) -> int:
    total = 0
    for shape in shapes.values():
        count = 1
        for d in shape:
            count *= d
        total += 2 * count
    return total


def layers_for(target: int) -> int:
    return max(1, -(-(target - nbytes(outer_shapes())) // nbytes(layer_shapes(0))))


def write_checkpoint(folder: Path, layers: int) -> int:
    """The checkpoint in ``folder``; returns the bytes of its safetensors files."""
    import torch
    from safetensors.torch import save_file
    from transformers import LlamaConfig

    sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "llm" / "hf"))
    from hf_checkpoints import tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    config = LlamaConfig(hidden_size=HIDDEN, intermediate_size=MLP, num_hidden_layers=layers,
                         num_attention_heads=HEADS, num_key_value_heads=KV_HEADS, vocab_size=VOCAB,
                         max_position_embeddings=8192, tie_word_embeddings=False, bos_token_id=1, eos_token_id=2,
                         architectures=["LlamaForCausalLM"], dtype="bfloat16")
    config.save_pretrained(str(folder))
    tokenizer(folder)
    generator = torch.Generator().manual_seed(0)
    chunk = 1 << 24  # normals drawn in f32 a chunk at a time into a bf16 pool 1.5x the largest tensor
    pool = torch.cat([(torch.randn(chunk, generator=generator) * 0.02).to(torch.bfloat16)
                      for _ in range(-(-3 * VOCAB * HIDDEN // 2 // chunk))])
    weight_map: dict[str, str] = {}
    parts = [layer_shapes(i) for i in range(layers)] + [outer_shapes()]
    total = 0
    for index, shapes in enumerate(parts):
        name = f"model-{index + 1:05d}-of-{len(parts):05d}.safetensors"
        tensors = {}
        for key, shape in shapes.items():
            count = 1
            for d in shape:
                count *= d
            at = int(torch.randint(0, pool.numel() - count + 1, (1,), generator=generator))
            value = pool[at : at + count].view(shape).clone()
            tensors[key] = value + 1 if key.endswith("norm.weight") else value
            weight_map[key] = name
        save_file(tensors, str(folder / name), metadata={"format": "pt"})
        path = folder / name
        fd = os.open(path, os.O_RDONLY)
        os.fdatasync(fd)
        os.close(fd)
        drop_cache(path)
        total += path.stat().st_size
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=1))
    return total


def read_once(folder: Path) -> float:
    """Seconds to read every shard once from disk (each shard's cached pages dropped first)."""
    buffer = bytearray(64 << 20)
    start = time.perf_counter()
    for path in sorted(folder.glob("*.safetensors")):
        drop_cache(path)
        with open(path, "rb", buffering=0) as file:
            while file.readinto(buffer):
                pass
        drop_cache(path)
    return time.perf_counter() - start


def run_measured(command: list[str]) -> tuple[float, float, float, float]:
    """``command`` in its own process: (seconds, CPU seconds, the largest peak RSS of it and
    its child processes, the peak of their summed RSS, sampled), in bytes."""
    import subprocess
    import threading

    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    summed = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            summed[0] = max(summed[0], sum(_rss(pid) for pid in _tree(process.pid)))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    done.set()
    sampler.join()
    seconds = time.perf_counter() - start
    if status:
        raise SystemExit(f"the conversion failed (status {status}): {' '.join(command)}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, summed[0]


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (from ``/proc``; none once they have ended)."""
    found, index = [pid], 0
    while index < len(found):
        try:
            for task in Path(f"/proc/{found[index]}/task").iterdir():
                found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
        index += 1
    return found


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def convert(folder: Path, out: Path, tree: Path | None = None) -> tuple[float, float, float, float]:
    """``irconv convert DIR -o OUT/ --weight-format int4-sym`` (by ``tree``'s sources when
    given): ``run_measured``'s figures."""
    command = [sys.executable, "-m", "irconv", "convert", str(folder), "-o", f"{out}/", "--weight-format", "int4-sym"]
    if tree is None:
        return run_measured(command)
    sources = [str(p) for p in sorted(tree.glob("*/src")) + sorted(tree.glob("*/*/src")) if ".tox" not in p.parts]
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(sources + ([previous] if previous else []))
    try:
        return run_measured(command)
    finally:
        if previous is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = previous


def zero_matrices(out: Path, layers: int = 2) -> str:
    """How many of the compressed matrices of the first ``layers`` layers hold only zeros
    (``k/n``): a conversion that lost the weights still generates tokens."""
    import openvino

    model = openvino.Core().read_model(str(out / "openvino_model.xml"))
    prefixes = tuple(f"model.model.layers.{i}." for i in range(layers))
    checked = [op for op in model.get_ops() if op.get_type_name() == "Constant"
               and op.get_friendly_name().startswith(prefixes) and op.get_element_type().is_integral()
               and op.get_output_partial_shape(0).rank.get_length() >= 2]
    zeros = sum(not np.any(op.get_data()) for op in checked)
    return f"{zeros}/{len(checked)}"


def generate(out: Path) -> list[int]:
    """Two greedy tokens from the folder by OpenVINO GenAI (CPU defaults)."""
    import openvino
    import openvino_genai

    pipe = openvino_genai.LLMPipeline(str(out), "CPU")
    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = config.min_new_tokens = 2
    ids = openvino.Tensor(np.array([[1, 50, 60, 70]], np.int64))
    result = pipe.generate(openvino_genai.TokenizedInputs(ids, openvino.Tensor(np.ones((1, 4), np.int64))), config)
    return [int(t) for t in result.tokens[0]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/hf-bigger"))
    parser.add_argument("--times", type=float, default=1.05, help="bf16 weights as a multiple of the RAM")
    parser.add_argument("--layers", type=int, help="layers (instead of --times)")
    parser.add_argument("--run", action="store_true", help="generate two tokens with OpenVINO GenAI")
    parser.add_argument("--compare", type=Path, help="another checkout whose sources convert it too")
    args = parser.parse_args()
    layers = args.layers or layers_for(int(args.times * ram_bytes()))
    folder, out = args.dir / "checkpoint", args.dir / "openvino"
    try:
        start = time.perf_counter()
        size = write_checkpoint(folder, layers)
        print(f"wrote {layers} layers, {size / GIB:.2f} GiB of bf16 safetensors in {time.perf_counter() - start:.0f} s",
              flush=True)
        compared = None
        if args.compare is not None:  # the other tree first, then this one (the page cache as cold for both)
            compared = convert(folder, out, args.compare.resolve())
            shutil.rmtree(out)
        seconds, cpu, peak, summed = convert(folder, out)
        bin_size = (out / "openvino_model.bin").stat().st_size
        read_s = read_once(folder)
        write_s = write_once(args.dir / "write-once.tmp", bin_size)
        floor = read_s + write_s
        tokens = generate(out) if args.run else "(not run)"
        zeros = zero_matrices(out)
        print("| sources | bf16 GiB | x RAM | layers | int4 .bin GiB | convert s | convert CPU s | peak RSS MiB "
              "| peak summed RSS MiB | read once s | write .bin once s | convert / I/O floor | all-zero matrices "
              "| generated |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        rows = [("this tree", (seconds, cpu, peak, summed))] + ([(str(args.compare), compared)] if compared else [])
        for name, (took, cpu_s, rss, total) in rows:
            print(f"| {name} | {size / GIB:.1f} | {size / ram_bytes():.2f} | {layers} | {bin_size / GIB:.2f} | {took:.0f} "
                  f"| {cpu_s:.0f} | {rss / (1 << 20):.0f} | {total / (1 << 20):.0f} | {read_s:.0f} | {write_s:.0f} "
                  f"| {took / floor:.1f} | {zeros} | {tokens!r} |")
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
