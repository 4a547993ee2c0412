"""Where the time of converting a Hugging Face folder goes: the floor set by PyTorch and
transformers, and irconv's own share, beside optimum-cli on the same checkpoint.

For each case (a family and a size, as in ``hf_against_optimum.py``) it runs, each as its own
process and ``--rounds`` times in rotating order (wall and CPU time from ``os.wait4``):

1. ``imports``: ``import torch, transformers`` and the family's modeling module, what any
   tool that traces transformers' class pays before it starts;
2. ``imports + trace``: the same, then the model built on the meta device and traced by
   ``torch.export`` with irconv's own wrapper (``irconv_llm.huggingface.trace``), the graph
   irconv converts;
3. ``irconv``: ``irconv convert DIR -o OUT/ [--weight-format F]``, the whole conversion;
4. ``optimum``: ``optimum-cli export openvino --task text-generation-with-past ...``.

It prints the medians and each one's ratio to optimum's: ``imports + trace`` over optimum is
the lowest ratio a converter that traces transformers' class with ``torch.export`` can reach,
and ``irconv`` minus ``imports + trace`` is irconv's own time (its graph pipeline, weights,
tokenizer conversion, writing, and the process's start and end).

    python bench/hf_convert_stages.py [--cases llama:tiny,llama:medium] [--format fp16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from hf_against_optimum import DTYPES, SIZES, Run, checkpoint, irconv_command, optimum_command, run_command  # noqa: E402

_IMPORTS = """
import sys, torch, transformers
from transformers import AutoConfig
config = AutoConfig.from_pretrained(sys.argv[1], local_files_only=True)
import importlib
importlib.import_module(f"transformers.models.{config.model_type}.modeling_{config.model_type}")
"""

_TRACE = _IMPORTS + """
from irconv_llm.huggingface.architectures import TEXT_GENERATION_WITH_PAST, model_class
from irconv_llm.huggingface.checkpoint import Checkpoint
from irconv_llm.huggingface.trace import empty_model, export_decoder
cls = model_class(Checkpoint.open(__import__("pathlib").Path(sys.argv[1])).config, TEXT_GENERATION_WITH_PAST, sys.argv[1])
export_decoder(empty_model(cls, config), TEXT_GENERATION_WITH_PAST)
"""
#: Each stage ends as ``irconv convert`` does (``irconv.cli.main.exit_without_teardown``):
#: without the interpreter's teardown of torch's modules, which would add seconds to the floor.
_EXIT = """
import os
os._exit(0)
"""

STAGES = ("imports", "imports + trace", "irconv", "optimum")


def commands(folder: Path, out: Path, fmt: str, size: str) -> dict[str, list[str]]:
    return {
        "imports": [sys.executable, "-c", _IMPORTS + _EXIT, str(folder)],
        "imports + trace": [sys.executable, "-c", _TRACE + _EXIT, str(folder)],
        "irconv": irconv_command(folder, out / "irconv", fmt, size),
        "optimum": optimum_command(folder, out / "optimum", fmt, size),
    }


def measure(folder: Path, work: Path, fmt: str, size: str, rounds: int) -> dict[str, list[Run]]:
    runs: dict[str, list[Run]] = {stage: [] for stage in STAGES}
    argv = commands(folder, work, fmt, size)
    for index in range(rounds):
        order = STAGES[index % len(STAGES):] + STAGES[:index % len(STAGES)]
        for stage in order:
            for sub in ("irconv", "optimum"):
                shutil.rmtree(work / sub, ignore_errors=True)
            runs[stage].append(run_command(argv[stage], work / f"{stage.replace(' ', '')}.log"))
    return runs


def print_table(rows: list[tuple[str, str, dict[str, list[Run]]]]) -> None:
    print("\n| model | format | stage | wall s | CPU s | wall / optimum | CPU / optimum |")
    print("|---|---|---|---:|---:|---:|---:|")
    med = statistics.median
    for case, fmt, runs in rows:
        ref_wall, ref_cpu = med(r.wall for r in runs["optimum"]), med(r.cpu for r in runs["optimum"])
        for stage in STAGES:
            wall, cpu = med(r.wall for r in runs[stage]), med(r.cpu for r in runs[stage])
            print(f"| {case} | {fmt} | {stage} | {wall:.1f} | {cpu:.1f} | {wall / ref_wall:.2f} | {cpu / ref_cpu:.2f} |")
        own_wall = med(r.wall for r in runs["irconv"]) - med(r.wall for r in runs["imports + trace"])
        own_cpu = med(r.cpu for r in runs["irconv"]) - med(r.cpu for r in runs["imports + trace"])
        print(f"| {case} | {fmt} | irconv's own (irconv - imports + trace) | {own_wall:.1f} | {own_cpu:.1f} "
              f"| {own_wall / ref_wall:.2f} | {own_cpu / ref_cpu:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="llama:tiny,llama:medium")
    parser.add_argument("--format", default="fp16", choices=("fp16", "int8", "int4-sym"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/hf-convert-stages"))
    args = parser.parse_args()
    rows = []
    try:
        for case in args.cases.split(","):
            family, size = case.split(":")
            work = args.dir / f"{family}-{size}"
            folder = work / "checkpoint"
            checkpoint(family, folder, dtype=DTYPES[size], **SIZES[size].get(family, {}))
            rows.append((case, args.format, measure(folder, work, args.format, size, args.rounds)))
            print_table(rows[-1:])
        print_table(rows)
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
