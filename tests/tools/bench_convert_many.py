"""Benchmark ``irconv convert-many``: a folder of small models (plus one corrupt file)
converted sequentially (-j 1) and with a process pool (-j N); prints both wall times and
the speed-up. Each run is a fresh ``irconv`` process with --force, so nothing is skipped.

    python tests/tools/bench_convert_many.py [--count 20] [--blocks 24] [-j 2] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_zoo import make_zoo  # noqa: E402


def timed_run(zoo: Path, out: Path, jobs: int) -> tuple[float, float, list[dict[str, object]]]:
    """Wall time, CPU time (the command and its worker processes) and the report rows."""
    report = out / f"report-j{jobs}.json"
    command = [
        "irconv",
        "convert-many",
        str(zoo),
        "-o",
        str(out),
        "-j",
        str(jobs),
        "--force",
        "-q",
        "--report",
        str(report),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=False, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, json.loads(report.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=24)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        zoo = Path(tmp) / "zoo"
        make_zoo(zoo, args.count, args.blocks, corrupt=True)
        best: dict[int, float] = {}
        for _ in range(args.repeat):
            for jobs in (1, args.jobs):
                elapsed, cpu, rows = timed_run(zoo, Path(tmp) / "out", jobs)
                best[jobs] = min(best.get(jobs, elapsed), elapsed)
                statuses = {s: sum(1 for r in rows if r["status"] == s) for s in ("ok", "failed")}
                print(
                    f"-j {jobs}: {elapsed:.2f} s wall, {cpu:.2f} s CPU (x{cpu / elapsed:.2f} of one core), "
                    f"{statuses['ok']} ok, {statuses['failed']} failed"
                )
        ratio = best[1] / best[args.jobs]
        print(f"best: -j 1 {best[1]:.2f} s, -j {args.jobs} {best[args.jobs]:.2f} s, speed-up x{ratio:.2f}")
        print(f"load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPU(s)")


if __name__ == "__main__":
    main()
