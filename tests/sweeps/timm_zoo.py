"""timm architecture sweep of the PyTorch front end: irconv against OpenVINO's own front end.

One model per timm module (``timm.list_modules()``): the variant of that module with the fewest
parameters that builds (counted on the meta device, nothing downloaded: ``pretrained=False``).
Each is built from a fixed seed in eval mode with its BatchNorm statistics randomised, on an
input of its default configuration scaled down to 128x128 where the architecture allows it
(``img_size=`` is passed to models that take it), and converted by each tool in its own
process: ``irconv.convert_model(module, example_input=...)`` (saved, read back) and
``openvino.convert_model(module, example_input=...)``. The IRs run on the CPU with f32
inference precision; a tool passes by ``tests/sweeps/torch_families.py``'s ``compare`` criterion
(shapes, and values within ``1e-3 * max(1, max |torch|)`` of torch eager).

timm imports torchvision, whose PyPI build does not import beside the CPU torch: both are
installed without dependencies in ``--site`` and ``tests/torch/torchvision_cpu_shim.py`` declares
torchvision's operators from Python. Results are cached per model in ``--cache``; a rerun
repeats only the failures (``--redo`` repeats everything).

    python tests/sweeps/timm_zoo.py                          # every module
    python tests/sweeps/timm_zoo.py --modules resnet levit   # some
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from irconv.testing import worker

SWEEPS_DIR = Path(__file__).resolve().parent
FAMILIES_DIR = SWEEPS_DIR.parent / "torch"
TOOLS = ("irconv", "ovc")
SMALL_SIDE = 128
CANDIDATES_TRIED = 4  # the smallest variants of a module tried in turn until one builds


def import_timm(site: str) -> Any:
    """timm, importable beside the CPU torch through the torchvision shim."""
    sys.path[:0] = [str(FAMILIES_DIR), site]
    import torchvision_cpu_shim  # noqa: F401, I001  (declares torchvision:: ops: must precede torchvision)
    import torchvision.extension

    torchvision.extension._has_ops = lambda: True
    import timm

    return timm


def parameter_count(timm: Any, name: str) -> float:
    """Parameters of ``name`` built on the meta device (no memory, no weights); inf when
    the model cannot be built there."""
    import torch

    try:
        with torch.device("meta"):
            model = timm.create_model(name, pretrained=False)
        return float(sum(p.numel() for p in model.parameters()))
    except Exception:  # some constructors compute on their tensors; they go last
        return float("inf")


def build(timm: Any, plan: dict[str, Any]) -> tuple[Any, tuple[Any, ...]]:
    """The planned model, seeded, BatchNorm statistics randomised, in eval mode, and its input."""
    import torch

    sys.path.insert(0, str(FAMILIES_DIR))
    from families import randomise_statistics

    torch.manual_seed(0)
    model = randomise_statistics(timm.create_model(plan["model"], pretrained=False, **plan["kwargs"]))
    return model, (torch.randn(1, *plan["input"]),)


def flat_outputs(out: Any) -> list[Any]:
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in flat_outputs(item)]
    return [out.detach().numpy()]


def child_plan(site: str, module: str) -> dict[str, Any]:
    """The module's smallest variant that builds and runs, with the smallest input it takes."""
    import torch

    timm = import_timm(site)
    from torch_families import _first_lines
    names = sorted(timm.list_models(module=module), key=lambda n: (parameter_count(timm, n), n))
    problem = "no models"
    for name in names[:CANDIDATES_TRIED]:
        try:
            default = tuple(timm.create_model(name, pretrained=False).pretrained_cfg["input_size"])
        except Exception as exc:
            problem = f"{name}: {type(exc).__name__}: {_first_lines(exc)}"
            continue
        channels, side = default[0], default[1]
        small = (channels, min(SMALL_SIDE, side), min(SMALL_SIDE, default[2]))
        for shape, kwargs in ((small, {"img_size": small[1:]}), (small, {}), (default, {})):
            plan = {"model": name, "input": list(shape), "kwargs": kwargs}
            try:
                model, example = build(timm, plan)
                with torch.no_grad():
                    flat_outputs(model(*example))
                return plan
            except Exception as exc:
                problem = f"{name} at {shape}: {type(exc).__name__}: {_first_lines(exc)}"
    return {"problem": problem}


def child_tool(site: str, tool: str, plan: dict[str, Any]) -> dict[str, Any]:
    """Convert the planned model with ``tool`` and compare the IR's outputs with torch eager."""
    import torch

    timm = import_timm(site)
    from torch_families import _first_lines, compare, convert

    model, example = build(timm, plan)
    with torch.no_grad():
        expected = flat_outputs(model(*example))
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        try:
            compiled = convert(tool, model, example, Path(tmp))
            seconds = time.perf_counter() - start
            result = compiled([t.numpy() for t in example])
            problem = compare(expected, [result[compiled.output(i)] for i in range(len(compiled.outputs))])
        except Exception as exc:  # a failure is this tool's row, not the sweep's end
            seconds = time.perf_counter() - start
            problem = f"{type(exc).__name__}: {_first_lines(exc)}"
    return {"ok": not problem, "seconds": round(seconds, 1), "problem": problem}


def run_child(arguments: list[str], timeout: float) -> dict[str, Any]:
    """The JSON a child process prints last, or the reason it printed none."""
    done = worker.run_child([sys.executable, __file__, *arguments], timeout)
    if done.record is not None:
        return done.record
    return {"ok": False, "seconds": timeout if done.timed_out else 0.0,
            "problem": done.problem if done.timed_out else f"child failed: {done.problem}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", nargs="*", help="timm module names (default: every one)")
    parser.add_argument("--site", default="/tmp/tvsite", help="directory holding timm and torchvision")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/timm_zoo.json"), help="results per model")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per tool and model")
    parser.add_argument("--tools", nargs="*", default=list(TOOLS), choices=TOOLS)
    parser.add_argument("--redo", action="store_true", help="repeat passes recorded in the cache too")
    parser.add_argument("--report", action="store_true", help="print the cached results, run nothing")
    parser.add_argument("--child-plan", help=argparse.SUPPRESS)
    parser.add_argument("--child-tool", nargs=2, metavar=("TOOL", "PLAN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_plan:
        print(json.dumps(child_plan(args.site, args.child_plan)))
        return 0
    if args.child_tool:
        print(json.dumps(child_tool(args.site, args.child_tool[0], json.loads(args.child_tool[1]))))
        return 0

    cache: dict[str, Any] = json.loads(args.cache.read_text()) if args.cache.exists() else {}
    modules = args.modules or json.loads(
        run_child_raw(["-c", f"import sys; sys.path[:0] = [{str(SWEEPS_DIR)!r}]; import timm_zoo, json; "
                             f"print(json.dumps(timm_zoo.import_timm({args.site!r}).list_modules()))"]))
    passes, counted = dict.fromkeys(TOOLS, 0), 0
    print("| module | model | input | irconv | ovc | irconv s | ovc s | failure |")
    print("|---|---|---|---|---|---|---|---|")
    for module in modules:
        entry = cache.setdefault(module, {})
        if args.report and not all(tool in entry for tool in args.tools):
            continue  # not measured yet
        if "plan" not in entry:
            entry["plan"] = run_child(["--site", args.site, "--child-plan", module], args.timeout)
        plan = entry["plan"]
        for tool in args.tools:
            if "model" not in plan:
                entry[tool] = {"ok": False, "seconds": 0.0, "problem": f"no model builds: {plan['problem']}"}
            elif not args.report and (args.redo or not entry.get(tool, {}).get("ok")):
                entry[tool] = run_child(["--site", args.site, "--child-tool", tool, json.dumps(plan)], args.timeout)
            if not args.report:
                args.cache.write_text(json.dumps(cache, indent=1))
        found = {tool: entry.get(tool, {"ok": False, "seconds": 0.0, "problem": "not run"}) for tool in TOOLS}
        counted += 1
        for tool in TOOLS:
            passes[tool] += bool(found[tool]["ok"])
        problems = "; ".join(f"{tool}: {found[tool]['problem']}" for tool in TOOLS if found[tool]["problem"])
        marks = ["pass" if found[tool]["ok"] else "FAIL" for tool in TOOLS]
        shape = "x".join(str(d) for d in plan.get("input", [])) or "-"
        print(f"| {module} | {plan.get('model', '-')} | {shape} | {marks[0]} | {marks[1]} | "
              f"{found['irconv']['seconds']:.1f} | {found['ovc']['seconds']:.1f} | {problems.replace('|', '/')} |",
              flush=True)
    print(f"\npasses: irconv {passes['irconv']}/{counted}, ovc {passes['ovc']}/{counted}")
    return 0


def run_child_raw(arguments: list[str]) -> str:
    """The last line a Python child prints."""
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True,
                          check=True).stdout.strip().splitlines()[-1]


if __name__ == "__main__":
    sys.exit(main())
