"""Architecture-family sweep of the PyTorch front end: irconv against OpenVINO's own front end.

Every family of ``tests/torch/families.py`` (``transformers`` models from small configs with
random weights, CNN families written in plain torch after torchvision's) is built from a fixed
seed in its own process and converted twice: ``irconv.convert_model(module, example_input=...)``
(saved, read back with ``openvino.Core().read_model``) and ``openvino.convert_model(module,
example_input=...)``. Each IR is compiled on the CPU with f32 inference precision and run on
the example input; a tool passes when every output has torch eager's shape and agrees within
``|got - want| <= 1e-3 * max(1, max |want|)`` (integer and boolean outputs exactly).

    python tests/sweeps/torch_families.py                       # every family
    python tests/sweeps/torch_families.py --families bert swin  # some
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from irconv.testing import worker

FAMILIES_DIR = Path(__file__).resolve().parents[1] / "torch"
TOOLS = ("irconv", "ovc")


def compare(expected: list[Any], actual: list[Any]) -> str:
    """'' when ``actual`` matches torch's ``expected`` outputs, else what differs."""
    import numpy as np

    if len(expected) != len(actual):
        return f"{len(actual)} outputs, torch gives {len(expected)}"
    for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
        if tuple(got.shape) != tuple(want.shape):
            return f"output {index}: shape {tuple(got.shape)}, torch {tuple(want.shape)}"
        if want.dtype == np.bool_ or want.dtype.kind in "iu":
            if not np.array_equal(got.astype(want.dtype), want):
                return f"output {index}: integer values differ"
            continue
        want32, got32 = want.astype(np.float32), got.astype(np.float32)
        scale = max(1.0, float(np.abs(want32).max())) if want32.size else 1.0
        diff = float(np.abs(got32 - want32).max()) if want32.size else 0.0
        if not diff <= 1e-3 * scale:
            return f"output {index}: max abs diff {diff:.2e} (scale {scale:.1f})"
    return ""


def convert(tool: str, module: Any, example: tuple[Any, ...], work: Path) -> Any:
    """The tool's IR of ``module``, compiled on the CPU."""
    import openvino as ov
    from irconv.runtime import compile_for_comparison

    core = ov.Core()
    if tool == "irconv":
        import irconv

        xml = work / "irconv.xml"
        irconv.save_model(irconv.convert_model(module, example_input=example), xml, compress_to_fp16=False)
        model = core.read_model(xml)
    else:
        model = ov.convert_model(module, example_input=example)
    return compile_for_comparison(model, core=core)


def child(name: str) -> dict[str, Any]:
    """Build family ``name``, convert it with both tools, compare each with torch eager."""
    sys.path.insert(0, str(FAMILIES_DIR))
    import torch
    from families import family

    torch.manual_seed(0)
    module, example = family(name).build()
    with torch.no_grad():
        out = module(*example)
    expected = [t.numpy() for t in (out if isinstance(out, (tuple, list)) else (out,))]
    report: dict[str, Any] = {}
    for tool in TOOLS:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            try:
                compiled = convert(tool, module, example, Path(tmp))
                seconds = time.perf_counter() - start
                result = compiled([t.numpy() for t in example])
                actual = [result[compiled.output(i)] for i in range(len(compiled.outputs))]
                problem = compare(expected, actual)
            except Exception as exc:  # a failure is this tool's row, not the sweep's end
                seconds = time.perf_counter() - start
                problem = f"{type(exc).__name__}: {_first_lines(exc)}"
        report[tool] = {"ok": not problem, "seconds": seconds, "problem": problem}
    return report


def _first_lines(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return " / ".join(lines[:3])[:300]


def run_family(name: str, timeout: float) -> dict[str, Any]:
    done = worker.run_child([sys.executable, __file__, "--child", name], timeout)
    if done.record is not None:
        return done.record
    if done.timed_out:
        return {tool: {"ok": False, "seconds": timeout, "problem": "timed out"} for tool in TOOLS}
    return {tool: {"ok": False, "seconds": 0.0, "problem": f"build failed: {done.problem}"} for tool in TOOLS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="*", help="family names (default: all)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per family")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    sys.path.insert(0, str(FAMILIES_DIR))
    from families import FAMILIES

    names = args.families or [f.name for f in FAMILIES]
    sources = {f.name: f.source for f in FAMILIES}
    passes = dict.fromkeys(TOOLS, 0)
    print("| family | source | irconv | ovc | irconv s | ovc s | failure |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        found = run_family(name, args.timeout)
        problems = "; ".join(f"{tool}: {found[tool]['problem']}" for tool in TOOLS if found[tool]["problem"])
        for tool in TOOLS:
            passes[tool] += found[tool]["ok"]
        marks = ["pass" if found[tool]["ok"] else "FAIL" for tool in TOOLS]
        print(f"| {name} | {sources.get(name, '?')} | {marks[0]} | {marks[1]} | {found['irconv']['seconds']:.1f} | "
              f"{found['ovc']['seconds']:.1f} | {problems.replace('|', '/')} |", flush=True)
    print(f"\npasses: irconv {passes['irconv']}/{len(names)}, ovc {passes['ovc']}/{len(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
