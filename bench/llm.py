"""LLM benchmark: a >= 1B-parameter decoder with random weights, as f16, int8 and int4 IRs.

A Llama-shaped decoder (TinyLlama's shape by default: 22 layers, hidden 2048, 32 heads with
4 KV heads, vocabulary 32000; 1.1 B parameters) is built from a ``transformers`` config with
seeded random weights and exported to ONNX with its KV cache as inputs/outputs (as the LLM
tests do: ``tests/llm/decoders.py``), once, into ``--dir``. Then ``irconv convert --stateful``
runs as its own process for each weight format (wall time and peak RSS from ``os.wait4``),
and OpenVINO's CPU plugin generates from the stateful IR: the first token (a prompt of
``--prompt`` tokens) and ``--tokens`` next tokens, batch 1, default CPU settings. Prints a
Markdown table (docs/llm.md).

    python bench/llm.py [--dir /tmp/llm-bench] [--formats f16,int8,int4-sym] [--tokens 32] [--prompt 32]

Bigger than memory: see docs/llm.md for the run under a memory limit.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MIB = 1 << 20
#: TinyLlama-1.1B's shape.
SHAPE = dict(
    vocab_size=32000,
    hidden_size=2048,
    intermediate_size=5632,
    num_hidden_layers=22,
    num_attention_heads=32,
    num_key_value_heads=4,
    initializer_range=0.02,
)


def export(directory: Path, layers: int) -> Path:
    """The random decoder's ONNX file (made once; in a child process, so that the torch
    model's memory never counts in a measured conversion)."""
    path = directory / "llama.onnx"
    if not path.exists():
        code = (
            "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; import warnings; "
            "warnings.simplefilter('ignore'); from decoders import config, random_model, export_onnx; "
            f"model = random_model(config('llama', **{SHAPE!r} | {{'num_hidden_layers': {layers}}})); "
            "print(f'{sum(p.numel() for p in model.parameters()) / 1e9:.2f} B parameters'); "
            "export_onnx(model, Path(sys.argv[2]))"
        )
        subprocess.run([sys.executable, "-c", code, str(REPO / "tests" / "llm"), str(path)], check=True)
    return path


def convert(model: Path, xml: Path, weight_format: str) -> tuple[float, float]:
    """``irconv convert --stateful`` in its own process: (seconds, peak RSS MiB)."""
    command = [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(xml), "--stateful"]
    if weight_format != "f16":
        command += ["--weight-format", weight_format]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status:
        raise SystemExit(f"conversion to {weight_format} failed: {' '.join(command)}")
    return seconds, usage.ru_maxrss * 1024 / MIB


def latency(xml: Path, prompt: int, tokens: int) -> tuple[float, float]:
    """(first-token seconds, mean next-token seconds) of greedy generation, batch 1."""
    import numpy as np
    import openvino

    # Deliberately the CPU's defaults (bf16 compute and a u8 KV cache where the CPU has
    # them): latency as users run the IR; main() prints the precision.
    compiled = openvino.Core().compile_model(str(xml), "CPU")
    request = compiled.create_infer_request()
    ids = np.random.default_rng(0).integers(3, 32000, (1, prompt))
    timings = []
    for _ in range(2):  # the first round warms up
        request.reset_state()
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones((1, prompt), np.int64),
            "position_ids": np.arange(prompt)[None],
            "beam_idx": np.zeros(1, np.int32),
        }
        steps = []
        for _ in range(tokens + 1):
            start = time.perf_counter()
            request.infer(feeds)
            steps.append(time.perf_counter() - start)
            token = request.get_tensor("logits").data[0, -1].argmax()
            length = feeds["attention_mask"].shape[1]
            feeds = {
                "input_ids": np.array([[token]]),
                "attention_mask": np.ones((1, length + 1), np.int64),
                "position_ids": np.array([[length]]),
                "beam_idx": np.zeros(1, np.int32),
            }
        timings.append(steps)
    steps = timings[-1]
    return steps[0], sum(steps[1:]) / tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/llm-bench"))
    parser.add_argument("--formats", default="f16,int8,int4-sym,int4-asym")
    parser.add_argument("--layers", type=int, default=SHAPE["num_hidden_layers"])
    parser.add_argument("--prompt", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=32)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    model = export(args.dir, args.layers)
    onnx_bytes = sum(p.stat().st_size for p in args.dir.iterdir() if p.is_file() and p.suffix not in (".xml", ".bin"))
    import openvino

    precision = openvino.Core().get_property("CPU", "INFERENCE_PRECISION_HINT").get_type_name()
    print(f"model: {model} ({onnx_bytes / MIB:.0f} MiB with its external data); CPU default precision {precision}\n")
    print("| weights | convert s | convert peak RSS MiB | .bin MiB | first token ms | next token ms |")
    print("|---|---|---|---|---|---|")
    for weight_format in args.formats.split(","):
        xml = args.dir / f"{weight_format}.xml"
        seconds, peak = convert(model, xml, weight_format)
        first, following = latency(xml, args.prompt, args.tokens)
        size = xml.with_suffix(".bin").stat().st_size / MIB
        print(
            f"| {weight_format} | {seconds:.1f} | {peak:.0f} | {size:.0f} | {first * 1e3:.0f} | {following * 1e3:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
