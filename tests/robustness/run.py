"""The long mutation run: ``python tests/robustness/run.py --n 1000 --format onnx``.

Builds the format's seed models, writes ``--n`` seeded mutants one at a time, converts each
with ``irconv convert`` in a fenced child (4 GiB address space, 60 s) and, when it converts,
has OpenVINO read and compile the IR. Prints a table of outcomes per format; every case
that is not ``accepted`` or ``clean-error`` is copied with its description and message to
``--findings`` (default: tests/robustness/findings/<format>/). The same case numbers give
the same mutants on every machine (``--seed``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from robust_formats import FORMATS, Format  # noqa: E402
from robust_harness import GOOD, OUTCOMES, Limits, Outcome, convert_case, preload  # noqa: E402


@dataclass(frozen=True)
class Case:
    format: str
    index: int
    seed_model: str
    change: str
    outcome: Outcome


def run_cases(fmt: Format, indices: range | list[int], seed: int, limits: Limits, work: Path) -> list[Case]:
    """Mutate and convert cases ``indices`` of ``fmt``; seed models are built in ``work``."""
    seed_paths = fmt.seeds(work / "seeds")
    cases = []
    for i in indices:
        rng = random.Random(f"{fmt.name}:{seed}:{i}")
        seed_path = rng.choice(seed_paths)
        case_dir = work / "case"
        shutil.rmtree(case_dir, ignore_errors=True)
        (case_dir / "in").mkdir(parents=True)
        model, extra, change = fmt.make_case(seed_path, case_dir / "in", rng)
        outcome = convert_case(model, case_dir / "out" / "model.xml", extra, limits)
        cases.append(Case(fmt.name, i, seed_path.name, change, outcome))
        if len(cases) % 100 == 0:
            print(f"  {fmt.name}: {len(cases)} cases", file=sys.stderr, flush=True)
        if not outcome.good:
            yield_finding(cases[-1], case_dir)
        shutil.rmtree(case_dir, ignore_errors=True)
    return cases


def yield_finding(case: Case, case_dir: Path, root: Path | None = None) -> None:
    """Keep the mutant and what happened, for a reproducer."""
    root = root or FINDINGS
    if root is None:
        return
    dest = root / case.format / f"{case.index:05d}-{case.outcome.outcome}"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(case_dir / "in", dest)
    (dest / "finding.json").write_text(
        json.dumps(
            {
                "format": case.format,
                "case": case.index,
                "seed_model": case.seed_model,
                "change": case.change,
                "outcome": case.outcome.outcome,
                "exit_code": case.outcome.exit_code,
                "message": case.outcome.message,
            },
            indent=1,
            ensure_ascii=False,
        )
    )


FINDINGS: Path | None = None  # set by main(); tests pass None (nothing is copied)


def table(results: dict[str, list[Case]], seconds: dict[str, float]) -> str:
    columns = [o for o in OUTCOMES]
    head = ["format", "mutants", *columns, "s/case"]
    rows = [head]
    for name, cases in results.items():
        counts = Counter(c.outcome.outcome for c in cases)
        per = seconds[name] / max(len(cases), 1)
        rows.append([name, str(len(cases)), *(str(counts.get(c, 0)) for c in columns), f"{per:.2f}"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["| " + " | ".join(cell.rjust(w) for cell, w in zip(r, widths, strict=True)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    global FINDINGS
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=100, help="mutants per format (default 100)")
    p.add_argument("--format", action="append", choices=[*FORMATS, "all"], help="repeatable; default onnx")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first case number")
    p.add_argument("--cases", type=lambda t: [int(v) for v in t.split(",")], default=None,
                   help="replay these case numbers (comma-separated) instead of --start/--n")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per case (default 60)")
    p.add_argument("--memory-gib", type=float, default=4.0, help="address-space limit per case (default 4)")
    p.add_argument("--no-openvino", action="store_true", help="skip reading converted IRs with OpenVINO")
    p.add_argument("--findings", type=Path, default=Path(__file__).parent / "findings")
    args = p.parse_args(argv)
    names = args.format or ["onnx"]
    if "all" in names:
        names = list(FORMATS)
    FINDINGS = args.findings
    limits = Limits(int(args.memory_gib * (1 << 30)), args.timeout, not args.no_openvino)
    preload(names)
    results: dict[str, list[Case]] = {}
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="irconv-mutants-") as tmp:
        for name in names:
            start = time.perf_counter()
            work = Path(tmp) / name
            indices = args.cases if args.cases is not None else range(args.start, args.start + args.n)
            results[name] = run_cases(FORMATS[name], indices, args.seed, limits, work)
            seconds[name] = time.perf_counter() - start
            bad = [c for c in results[name] if c.outcome.outcome not in GOOD]
            for c in bad:
                print(f"{name} #{c.index} {c.outcome.outcome}: {c.change} -> {c.outcome.message[:300]}", flush=True)
    print(f"\nirconv mutation run, {datetime.date.today().isoformat()}, seed {args.seed}, cases {args.start}..")
    print(table(results, seconds))
    return 0 if all(c.outcome.good for cases in results.values() for c in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
