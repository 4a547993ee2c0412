"""irconv against optimum-intel on the same Hugging Face folders: conversion time and memory,
and OpenVINO GenAI's speed and tokens on the two output folders.

For each case (a family and a size: random-weight checkpoints built here by
``tests/llm/hf/hf_checkpoints.py``, nothing downloaded) and each weight format it

1. converts the checkpoint with both tools, each as its own process, in pairs whose order
   alternates, ``--rounds`` times:
   ``optimum-cli export openvino --model DIR --task text-generation-with-past --weight-format F OUT``
   and ``irconv convert DIR -o OUT/ [--weight-format F]``, and prints wall time, CPU time
   and peak RSS (``os.wait4``'s rusage, see ``_LAUNCHER``) with the medians of irconv / optimum per pair;
2. compares the two IRs: op count, ``ScaledDotProductAttention`` ops, ``ReadValue``/``Assign``
   pairs, ``PagedAttentionExtension`` ops after OpenVINO's SDPA-to-PagedAttention rewrite (0:
   refused, and GenAI falls back to its stateful backend), and the ops of the model
   ``compile_model`` gives on CPU (where attention fuses);
3. runs both folders with OpenVINO GenAI's ``LLMPipeline`` on the same prompts and
   ``GenerationConfig`` (greedy, ``--new-tokens`` each), under two settings: f32
   (``INFERENCE_PRECISION_HINT=f32, KV_CACHE_PRECISION=f32``) and the CPU plugin's defaults;
   prints the median first-token latency and tokens/s of each folder (alternating which
   runs first), and whether the greedy tokens of the two folders are equal.

Formats: ``fp16`` (optimum ``--weight-format fp16``; irconv's default f16 weights), ``int8``
(both: asymmetric u8 per output channel), ``int4-sym`` (optimum ``--weight-format int4 --sym
--group-size 128 --ratio 1.0``; irconv ``--weight-format int4-sym --group-size 128``; group 32
for the tiny checkpoints, whose hidden size is 64; both keep the embedding and the last
projection in int8).

optimum-intel is not a dependency of irconv or its tests; it pins transformers below 5.6 and
huggingface-hub below 1.22 and asks for torchvision, whose PyPI wheels pull a CUDA build of
torch. Install it beside a CPU torch as:

    pip install "transformers<5.6" "huggingface-hub<1.22" && pip install --no-deps optimum-intel

    python bench/hf_against_optimum.py [--cases llama:tiny,qwen2:tiny,phi3:tiny,gpt2:tiny,llama:medium]
        [--formats fp16,int8,int4-sym] [--rounds 3] [--new-tokens 32] [--no-genai] [--dir /tmp/hf-against-optimum]
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "llm" / "hf"))
from hf_checkpoints import checkpoint  # noqa: E402

MIB = 1 << 20
PROMPTS = ["The quick brown fox", "Hello world! How are you", "Numbers like 123 and 456 appear",
           "A tokenizer splits text into pieces"]
EXACT = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"}
SETTINGS = {"f32": EXACT, "default": {}}

#: Sizes: the tests' tiny checkpoints, one of a few hundred MB in bf16 (as checkpoints are
#: published) where reading, converting and compressing weights outweighs the imports, one of
#: 1.1 B parameters (TinyLlama-1.1B's published shape, 2.1 GiB in bf16) and one of 3.2 B
#: (Llama-3.2-3B's, 6.0 GiB), the sizes small LLMs are deployed at.
_MEDIUM_LLAMA_LIKE = dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
                          num_key_value_heads=8, vocab_size=32000, initializer_range=0.02)
_LARGE_LLAMA_LIKE = dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
                         num_key_value_heads=4, vocab_size=32000, initializer_range=0.02)
_XL_LLAMA_LIKE = dict(hidden_size=3072, intermediate_size=8192, num_hidden_layers=28, num_attention_heads=24,
                      num_key_value_heads=8, vocab_size=128256, tie_word_embeddings=True, initializer_range=0.02)
SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "tiny": {},
    "medium": {
        "llama": _MEDIUM_LLAMA_LIKE, "qwen2": _MEDIUM_LLAMA_LIKE, "phi3": _MEDIUM_LLAMA_LIKE,
        "gpt2": dict(n_embd=1024, n_layer=8, n_head=16, vocab_size=32000, initializer_range=0.02),
        "bloom": dict(hidden_size=1024, n_layer=8, n_head=16, vocab_size=32000, initializer_range=0.02),
    },
    "large": {"llama": _LARGE_LLAMA_LIKE, "qwen2": _LARGE_LLAMA_LIKE},
    "xl": {"llama": _XL_LLAMA_LIKE},
}
DTYPES = {"tiny": "float32", "medium": "bfloat16", "large": "bfloat16", "xl": "bfloat16"}
#: 4-bit group size: 128 as usual, 32 where the hidden size (64) is less.
GROUPS = {"tiny": 32, "medium": 128, "large": 128, "xl": 128}
#: Weight format -> (optimum-cli's options, irconv's options); {group} is GROUPS' size.
FORMATS: dict[str, tuple[list[str], list[str]]] = {
    "fp16": (["--weight-format", "fp16"], []),
    "int8": (["--weight-format", "int8"], ["--weight-format", "int8"]),
    "int4-sym": (["--weight-format", "int4", "--sym", "--group-size", "{group}", "--ratio", "1.0"],
                 ["--weight-format", "int4-sym", "--group-size", "{group}"]),
}


def options(tool: int, fmt: str, size: str) -> list[str]:
    return [o.format(group=GROUPS[size]) for o in FORMATS[fmt][tool]]


@dataclass
class Run:
    wall: float
    cpu: float
    peak: int  # bytes


#: Runs argv[2:] and writes its rusage's peak RSS (KiB) into the file argv[1]. Linux counts a
#: forked child's peak from its parent's resident size at the fork: the bench itself holds
#: checkpoints and GenAI pipelines, so its children are started by this small process.
_LAUNCHER = ("import os, subprocess, sys; process = subprocess.Popen(sys.argv[2:]); "
             "_, status, usage = os.wait4(process.pid, 0); open(sys.argv[1], 'w').write(str(usage.ru_maxrss)); "
             "sys.exit(os.waitstatus_to_exitcode(status))")


def run_command(command: list[str], log: Path) -> Run:
    """``command`` as its own process, its output into ``log``; its wall and CPU time and peak RSS."""
    peak_file = log.with_suffix(".peak")
    start = time.perf_counter()
    with open(log, "w") as out:
        process = subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(peak_file), *command], stdout=out,
                                   stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status:
        raise SystemExit(f"failed (status {status}, log {log}): {' '.join(command)}")
    return Run(wall, usage.ru_utime + usage.ru_stime, int(peak_file.read_text()) * 1024)


def optimum_command(folder: Path, out: Path, fmt: str, size: str) -> list[str]:
    cli = Path(sys.executable).with_name("optimum-cli")
    return [str(cli), "export", "openvino", "--model", str(folder), "--task", "text-generation-with-past",
            *options(0, fmt, size), str(out)]


def irconv_command(folder: Path, out: Path, fmt: str, size: str) -> list[str]:
    return [sys.executable, "-m", "irconv", "convert", str(folder), "-o", f"{out}/", *options(1, fmt, size)]


def convert_pairs(folder: Path, work: Path, fmt: str, size: str, rounds: int) -> dict[str, list[Run]]:
    """Both tools ``rounds`` times, in alternating order; the last outputs are kept."""
    runs: dict[str, list[Run]] = {"optimum": [], "irconv": []}
    commands = {"optimum": optimum_command, "irconv": irconv_command}
    for index in range(rounds):
        order = ["irconv", "optimum"] if index % 2 == 0 else ["optimum", "irconv"]
        for tool in order:
            out = work / f"{tool}-{fmt}"
            shutil.rmtree(out, ignore_errors=True)
            runs[tool].append(run_command(commands[tool](folder, out, fmt, size), work / f"{tool}-{fmt}.log"))
    return runs


def paged_attention(core: Any, xml: Path) -> tuple[int, int]:
    """PagedAttention ops after OpenVINO's SDPA-to-PagedAttention rewrite (0 when it refuses
    the model: GenAI's LLMPipeline runs its PagedAttention backend only on a model so
    rewritten), and the nodes of the model the CPU plugin compiles from the rewritten one
    (what that backend runs per step; 0 when there is none)."""
    from irconv.runtime import compile_for_comparison
    from openvino._offline_transformations import paged_attention_transformation

    model = core.read_model(str(xml))
    try:
        paged_attention_transformation(model)
    except RuntimeError:
        return 0, 0
    count = sum(op.get_type_name() == "PagedAttentionExtension" for op in model.get_ops())
    return count, len(compile_for_comparison(model, core=core).get_runtime_model().get_ops()) if count else 0


def histogram(xml: Path) -> dict[str, Any]:
    """The size of the IR's weights, its op counts, those of its PagedAttention rewrite and
    those of the model OpenVINO's CPU plugin compiles from it."""
    import openvino
    from irconv.runtime import compile_for_comparison

    core = openvino.Core()
    model = core.read_model(str(xml))
    types = collections.Counter(op.get_type_name() for op in model.get_ops())
    compiled = compile_for_comparison(model, core=core).get_runtime_model()
    runtime = collections.Counter(op.get_rt_info()["layerType"].astype(str) for op in compiled.get_ops())
    paged, paged_runtime = paged_attention(core, xml)
    return {"bin MiB": round(xml.with_suffix(".bin").stat().st_size / MIB), "ops": len(model.get_ops()), "sdpa": types["ScaledDotProductAttention"], "state": types["ReadValue"],
            "paged": paged, "matmul": types["MatMul"],
            "runtime ops": len(compiled.get_ops()), "runtime sdpa": runtime["ScaledDotProductAttention"],
            "runtime fc": runtime["FullyConnected"], "paged runtime ops": paged_runtime}


@dataclass
class Speed:
    ttft_ms: list[float]
    tokens_per_s: list[float]
    tokens: list[list[int]]


def genai_speed(folders: dict[str, Path], setting: dict[str, str], new_tokens: int, repeats: int) -> dict[str, Speed]:
    """First-token latency and throughput of each folder on PROMPTS, the folders taking turns."""
    import openvino_genai

    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = config.min_new_tokens = new_tokens
    config.do_sample = False
    pipes = {tool: openvino_genai.LLMPipeline(str(folder), "CPU", **setting) for tool, folder in folders.items()}
    for pipe in pipes.values():
        pipe.generate(PROMPTS[0], config)  # warm-up: first inference allocates and compiles kernels
    speeds = {tool: Speed([], [], []) for tool in pipes}
    for index in range(repeats):
        order = list(pipes) if index % 2 == 0 else list(reversed(pipes))
        for tool in order:
            for prompt in PROMPTS:
                ids = pipes[tool].get_tokenizer().encode(prompt)
                result = pipes[tool].generate(ids, config)
                metrics = result.perf_metrics
                speeds[tool].ttft_ms.append(metrics.get_ttft().mean)
                speeds[tool].tokens_per_s.append(metrics.get_throughput().mean)
                if index == 0:
                    speeds[tool].tokens.append([int(t) for t in result.tokens[0]])
    return speeds


def median_ratio(numerators: list[float], denominators: list[float]) -> float:
    return statistics.median(a / b for a, b in zip(numerators, denominators, strict=True))


def print_conversion_table(rows: list[tuple[str, str, float, dict[str, list[Run]]]]) -> None:
    print("\n| model | format | checkpoint MiB | optimum wall s | irconv wall s | wall ratio | optimum CPU s "
          "| irconv CPU s | CPU ratio | optimum peak MiB | irconv peak MiB | peak ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case, fmt, size, runs in rows:
        o, i = runs["optimum"], runs["irconv"]
        med = statistics.median
        print(f"| {case} | {fmt} | {size:.0f} | {med(r.wall for r in o):.1f} | {med(r.wall for r in i):.1f} "
              f"| {median_ratio([r.wall for r in i], [r.wall for r in o]):.2f} | {med(r.cpu for r in o):.1f} "
              f"| {med(r.cpu for r in i):.1f} | {median_ratio([r.cpu for r in i], [r.cpu for r in o]):.2f} "
              f"| {med(r.peak for r in o) / MIB:.0f} | {med(r.peak for r in i) / MIB:.0f} "
              f"| {median_ratio([r.peak for r in i], [r.peak for r in o]):.2f} |", flush=True)


def print_ir_table(rows: list[tuple[str, str, dict[str, dict[str, Any]]]]) -> None:
    keys = ["bin MiB", "ops", "sdpa", "state", "paged", "matmul", "runtime ops", "runtime sdpa", "runtime fc", "paged runtime ops"]
    print("\n| model | format | tool | " + " | ".join(keys) + " |")
    print("|---|---|---|" + "---:|" * len(keys))
    for case, fmt, tools in rows:
        for tool, counts in tools.items():
            print(f"| {case} | {fmt} | {tool} | " + " | ".join(str(counts[k]) for k in keys) + " |", flush=True)


def print_genai_table(rows: list[tuple[str, str, str, dict[str, Speed]]]) -> None:
    print("\n| model | format | setting | optimum first token ms | irconv first token ms | ratio "
          "| optimum tokens/s | irconv tokens/s | ratio | greedy tokens equal |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|")
    for case, fmt, setting, speeds in rows:
        o, i = speeds["optimum"], speeds["irconv"]
        med = statistics.median
        equal = sum(a == b for a, b in zip(o.tokens, i.tokens, strict=True))
        print(f"| {case} | {fmt} | {setting} | {med(o.ttft_ms):.1f} | {med(i.ttft_ms):.1f} "
              f"| {med(i.ttft_ms) / med(o.ttft_ms):.2f} | {med(o.tokens_per_s):.1f} | {med(i.tokens_per_s):.1f} "
              f"| {med(i.tokens_per_s) / med(o.tokens_per_s):.2f} | {equal}/{len(o.tokens)} prompts |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="llama:tiny,qwen2:tiny,phi3:tiny,gpt2:tiny,llama:medium",
                        help="family:size pairs (sizes: " + ", ".join(SIZES) + ")")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--rounds", type=int, default=3, help="conversion pairs per case and format")
    parser.add_argument("--new-tokens", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=2, help="GenAI passes over the prompts per folder")
    parser.add_argument("--no-genai", action="store_true", help="conversions only")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/hf-against-optimum"))
    args = parser.parse_args()
    formats = args.formats.split(",")
    conversions, irs, speeds = [], [], []
    try:
        for case in args.cases.split(","):
            family, size = case.split(":")
            work = args.dir / f"{family}-{size}"
            folder = work / "checkpoint"
            checkpoint(family, folder, dtype=DTYPES[size], **SIZES[size].get(family, {}))
            mib = sum(p.stat().st_size for p in folder.glob("*.safetensors")) / MIB
            for fmt in formats:
                conversions.append((case, fmt, mib, convert_pairs(folder, work, fmt, size, args.rounds)))
                print_conversion_table(conversions[-1:])
                folders = {tool: work / f"{tool}-{fmt}" for tool in ("optimum", "irconv")}
                irs.append((case, fmt, {t: histogram(f / "openvino_model.xml") for t, f in folders.items()}))
                if not args.no_genai:
                    for name, setting in SETTINGS.items():
                        speeds.append((case, fmt, name, genai_speed(folders, setting, args.new_tokens, args.repeats)))
            shutil.rmtree(work, ignore_errors=True)
        print_conversion_table(conversions)
        print_ir_table(irs)
        if speeds:
            print_genai_table(speeds)
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
