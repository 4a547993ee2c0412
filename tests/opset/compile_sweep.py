"""The full one-op compile sweep (``irconv_opset.sweep``): every op version and declared
attribute variant, static and dynamic, emitted by irconv and compiled on the CPU plugin.

    python tests/opset/compile_sweep.py            # table of counts, then every refusal
    python tests/opset/compile_sweep.py --all      # every form and its outcome
    python tests/opset/compile_sweep.py --only TopK,Squeeze

Exits 1 when the runtime refused any form irconv emitted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

CASES = Path(__file__).resolve().parents[2] / "plugins-builtin" / "opset" / "tests"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="print every form and its outcome")
    parser.add_argument("--only", default="", help="comma-separated IR op types")
    args = parser.parse_args(argv)

    from irconv.plugins.manager import PluginHost
    from irconv.runtime import openvino_core
    from irconv_opset.sweep import COMPILED, REFUSED_BY_RUNTIME, run_item, sweep_items
    from irconv_opset.testing import load_case_files

    files = load_case_files(CASES)
    broken = [f"{f.path.name}: {f.error}" for f in files if f.error]
    if broken:
        print("\n".join(broken), file=sys.stderr)
        return 2
    items = sweep_items(files)
    only = {t for t in args.only.split(",") if t}
    if only:
        items = [i for i in items if i.op_class.type in only]
    host = PluginHost(strict=True)
    core = openvino_core(host.registry())
    start = time.perf_counter()
    outcomes = []
    with tempfile.TemporaryDirectory() as tmp:
        for item in items:
            outcomes.append(run_item(item, Path(tmp), host, core))
    seconds = time.perf_counter() - start
    counts = Counter(o.status for o in outcomes)
    classes = len({i.op_class for i in items})
    print(f"{len(items)} forms of {classes} op classes in {seconds:.0f} s: "
          + ", ".join(f"{counts[s]} {s}" for s in sorted(counts)))
    for outcome in outcomes:
        if args.all or outcome.status != COMPILED:
            recipe = f" [{outcome.recipe}]" if outcome.recipe else ""
            print(f"{outcome.status:24} {outcome.item.id}{recipe}: {outcome.detail}")
    return 1 if counts[REFUSED_BY_RUNTIME] else 0


if __name__ == "__main__":
    sys.exit(main())
