"""CPU time of one decoding step and of one prompt's prefill of the stateful models in GenAI
folders, side by side.

For each folder (``openvino_model.xml`` with ``input_ids``, ``attention_mask``,
[``position_ids``], ``beam_idx``, the KV cache as state) it compiles the model on CPU through
``irconv.runtime.compile_for_comparison`` (f32 compute and KV cache) with one inference
thread and one stream, feeds a 5-token prompt and then ``--steps`` single tokens (batch 1),
and takes the process CPU time of those steps' ``infer`` calls only (inputs are made before);
then it times ``--prefills`` prefills of a ``--prompt-length`` prompt, each from an empty cache.
Each folder runs ``--passes`` times in rotating order; the table gives the best and the
median pass, in microseconds per step or prefill. CPU time rather than wall time, so that other jobs on
the machine count less; on a tiny model the step's fixed work (shape inference and the
runtime's per-node bookkeeping) is most of it.

    python bench/hf_decode_step.py FOLDER [FOLDER ...] [--steps 400] [--passes 5]
        [--prompt-length 32] [--prefills 50]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

PROMPT = 5


def _feeds(names: set[str], start: int, tokens: list[int]) -> dict[str, Any]:
    import openvino

    length = len(tokens)
    values = {"input_ids": np.array([tokens], np.int64), "attention_mask": np.ones((1, start + length), np.int64),
              "position_ids": np.arange(start, start + length, dtype=np.int64)[None],
              "beam_idx": np.zeros(1, np.int32)}
    return {name: openvino.Tensor(value) for name, value in values.items() if name in names}


def step_and_prefill_cpu_us(folder: Path, steps: int, prompt_length: int, prefills: int) -> tuple[float, float]:
    """CPU microseconds per decoding step over ``steps`` steps after a fresh prompt, and per
    prefill of a ``prompt_length`` prompt from an empty cache."""
    from irconv.runtime import compile_for_comparison

    compiled = compile_for_comparison(folder / "openvino_model.xml", config={"NUM_STREAMS": "1", "INFERENCE_NUM_THREADS": 1})
    names = {name for port in compiled.inputs for name in port.get_names()}
    request = compiled.create_infer_request()
    prompt = _feeds(names, 0, list(range(5, 5 + PROMPT)))
    feeds = [_feeds(names, PROMPT + i, [10 + i % 50]) for i in range(steps)]
    request.infer(prompt)  # warm-up: first inference allocates
    request.reset_state()
    request.infer(prompt)
    start = time.process_time()
    for feed in feeds:
        request.infer(feed)
    step = (time.process_time() - start) / steps * 1e6
    long_prompt = _feeds(names, 0, [5 + i % 50 for i in range(prompt_length)])
    request.reset_state()
    request.infer(long_prompt)  # warm-up at this length
    spent = 0.0
    for _ in range(prefills):
        request.reset_state()
        start = time.process_time()
        request.infer(long_prompt)
        spent += time.process_time() - start
    return step, spent / prefills * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--prompt-length", type=int, default=32)
    parser.add_argument("--prefills", type=int, default=50)
    args = parser.parse_args()
    steps: dict[Path, list[float]] = {folder: [] for folder in args.folders}
    prefills: dict[Path, list[float]] = {folder: [] for folder in args.folders}
    for index in range(args.passes):
        order = args.folders[index % len(args.folders):] + args.folders[:index % len(args.folders)]
        for folder in order:
            step, prefill = step_and_prefill_cpu_us(folder, args.steps, args.prompt_length, args.prefills)
            steps[folder].append(step)
            prefills[folder].append(prefill)
    print(f"\n| folder | best us/step | median us/step | best us/prefill of {args.prompt_length} | median us/prefill |")
    print("|---|---:|---:|---:|---:|")
    for folder in args.folders:
        print(f"| {folder.name} | {min(steps[folder]):.0f} | {statistics.median(steps[folder]):.0f} "
              f"| {min(prefills[folder]):.0f} | {statistics.median(prefills[folder]):.0f} |")


if __name__ == "__main__":
    main()
