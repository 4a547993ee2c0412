"""``irconv convert`` against ``ovc`` on Paddle programs: the table of docs/paddle.md.

The models are the end-to-end tests' (``tests/paddle/paddle_cases.py``): every
``paddle.vision.models`` network of ``VISION`` and the detection network ``yolo_network``
(a small backbone, a YOLOv3 head, ``yolo_box`` and ``multiclass_nms3``), with random
weights from ``paddle.seed(0)``, each saved by Paddle in both program forms (legacy
``.pdmodel`` and PIR ``.json``), in a child process (Paddle is never imported here),
with Paddle's own results on seeded inputs beside them.

Per model and form:

* whether each tool converts it (its CLI exits 0) and whether its IR, run in OpenVINO at
  f32, matches Paddle (largest difference at most 1e-3 of the largest reference value, as
  the tests ask; converted once more at f32 weights for that check, irconv through its
  Python API and ovc through ``openvino.convert_model``, each in a child process);
* conversion time and peak memory: both CLIs as whole processes with their defaults,
  paired and alternating (the order flips every round); the median wall time, the largest
  peak RSS, and their irconv/ovc ratios, then the medians of the ratios.

    python bench/paddle_against_ovc.py --keep /tmp/paddle_against_ovc            # all, 3 rounds
    python bench/paddle_against_ovc.py --models resnet18,yolo_network --rounds 5
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
from harness import Runs, alternating, markdown_table, run_process, use_test_helpers

FORMS = {"legacy": ".pdmodel", "pir": ".json"}
RTOL = 1e-3


def saved(names: list[str], form: str, work: Path) -> Path:
    """The folder holding ``names`` saved in ``form`` (saved by Paddle, in a child, when missing)."""
    use_test_helpers("paddle")
    from paddle_cases import DETECTION, VISION
    from paddle_compare import save_models

    folder = work / form
    missing = [n for n in names if not (folder / f"{n}.npz").exists()]
    vision = [n for n in missing if n in VISION]
    detection = [n for n in missing if n in DETECTION]
    if vision:
        save_models(folder, form, "paddle_cases:VISION", vision)
    if detection:
        save_models(folder, form, "paddle_cases:DETECTION", detection)
    return folder


def matches(outputs: list[np.ndarray], reference: list[np.ndarray]) -> bool:
    """Every output has the reference's shape and is within RTOL of it (integers equal)."""
    use_test_helpers("paddle")
    from paddle_compare import relative_error

    if len(outputs) != len(reference):
        return False
    for got, want in zip(outputs, reference, strict=True):
        if got.shape != want.shape:
            return False
        if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
            if not np.array_equal(got, want):
                return False
        elif relative_error(got, want) > RTOL:
            return False
    return True


def run_compiled(model: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """``model`` (an ov.Model or an IR path) compiled at f32 on the CPU, run on ``feeds`` (by name)."""
    from irconv.runtime import compile_for_comparison

    compiled = compile_for_comparison(model)
    request = compiled.create_infer_request()
    feed = {port: feeds[next(n for n in feeds if n in port.get_names())] for port in compiled.inputs}
    request.infer(feed)
    return [np.array(request.get_tensor(port).data) for port in compiled.outputs]


def check_in_child(tool: str, program: Path, out: Path) -> str:
    """:func:`check` in a child process: the measuring parent stays small (a child forked from
    a large parent starts its peak RSS from the parent's)."""
    found = run_process([sys.executable, __file__, "--check", tool, str(program), str(out)], check=False)
    lines = found.stdout.strip().splitlines()
    return lines[-1] if found.returncode == 0 and lines else f"fails: the check crashed ({found.returncode})"


def check(tool: str, program: Path, out: Path) -> str:
    """``tool``'s f32 conversion of ``program`` against Paddle: "matches", "differs" or why it failed."""
    reference = reference_of(program.parent, program.stem)
    feeds, want = reference["feeds"], reference["outputs"]
    try:
        if tool == "irconv":
            import irconv

            graph = irconv.convert_model(program)
            irconv.save_model(graph, out / "check.xml", compress_to_fp16=False)
            got = run_compiled(str(out / "check.xml"), feeds)
        else:
            import openvino as ov

            got = run_compiled(ov.convert_model(str(program)), feeds)
    except Exception as exc:  # a tool that fails is a row of the table, not the end of the run
        return f"fails: {str(exc).strip().splitlines()[0][:60]}" if str(exc).strip() else "fails"
    return "matches" if matches(got, want) else "differs"


def reference_of(folder: Path, name: str) -> dict[str, Any]:
    data = np.load(folder / f"{name}.npz")
    feeds = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
    outputs = [data[f"out:{i}"] for i in range(sum(k.startswith("out:") for k in data.files))]
    return {"feeds": feeds, "outputs": outputs}


def measure(program: Path, rounds: int, out: Path) -> dict[str, Runs | None]:
    """Both CLIs with their defaults, alternating; None for a tool that fails."""
    cmds = {"irconv": [sys.executable, "-m", "irconv", "convert", str(program), "-o", str(out / "irconv.xml")],
            "ovc": [shutil.which("ovc") or "ovc", str(program), "--output_model", str(out / "ovc.xml")]}
    runs: dict[str, Runs | None] = {tool: Runs() for tool in cmds}
    for _, tool in alternating(list(cmds), rounds):
        found = runs[tool]
        if found is None:
            continue
        process = run_process(cmds[tool], check=False)
        if process.returncode != 0:
            runs[tool] = None
        else:
            found.add(process)
        for written in out.iterdir():
            written.unlink()
    return runs


def row(name: str, form: str, folder: Path, rounds: int, work: Path) -> tuple[list[object], float | None, float | None]:
    program = folder / f"{name}{FORMS[form]}"
    out = work / f"{name}-{form}_out"
    out.mkdir(exist_ok=True)
    if not program.exists():
        return [name, form, _not_saved(folder / f"{name}.error"), "", "", "", "", "", "", ""], None, None
    verdicts = {tool: check_in_child(tool, program, out) for tool in ("irconv", "ovc")}
    for written in out.iterdir():
        written.unlink()
    runs = measure(program, rounds, out)
    mine, theirs = runs["irconv"], runs["ovc"]
    wall = f"{mine.wall:.2f}" if mine else "—"
    peak = f"{mine.peak_mib:.0f}" if mine else "—"
    their_wall = f"{theirs.wall:.2f}" if theirs else "does not convert"
    their_peak = f"{theirs.peak_mib:.0f}" if theirs else "—"
    time_ratio = mine.wall / theirs.wall if mine and theirs else None
    peak_ratio = mine.peak_mib / theirs.peak_mib if mine and theirs else None
    return ([name, form, verdicts["irconv"], verdicts["ovc"], wall, their_wall,
             f"{time_ratio:.2f}" if time_ratio else "—", peak, their_peak,
             f"{peak_ratio:.2f}" if peak_ratio else "—"], time_ratio, peak_ratio)


def _not_saved(error: Path) -> str:
    text = error.read_text() if error.exists() else ""
    found = re.search(r"(\w+)\(\): argument \(position \d+\) must be Value", text)
    if found:
        return f"Paddle writes no such program ({found.group(1)} is PIR-only in its Python API)"
    return "Paddle could not save it"


def main(argv: list[str] | None = None) -> int:
    use_test_helpers("paddle")
    from paddle_cases import VISION

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join([*VISION, "yolo_network"]),
                        help="comma-separated names of paddle_cases' VISION and DETECTION (default: every "
                             "VISION network and yolo_network)")
    parser.add_argument("--forms", default=",".join(FORMS), help="legacy, pir or both (default)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=Path("/tmp/irconv_paddle_against_ovc"),
                        help="where the models are saved and kept")
    parser.add_argument("--check", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.check:  # in a child: one tool's conversion against Paddle's results
        print(check(args.check[0], Path(args.check[1]), Path(args.check[2])))
        return 0
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # measure what a user runs: bytecode cached
    args.keep.mkdir(parents=True, exist_ok=True)
    names = args.models.split(",")
    rows, time_ratios, peak_ratios = [], [], []
    for form in args.forms.split(","):
        folder = saved(names, form, args.keep)
        for name in names:
            cells, time_ratio, peak_ratio = row(name, form, folder, args.rounds, args.keep)
            rows.append(cells)
            time_ratios += [time_ratio] if time_ratio else []
            peak_ratios += [peak_ratio] if peak_ratio else []
            print(f"{name} ({form}): measured", file=sys.stderr, flush=True)
    print(f"{args.rounds} alternating rounds per model, both CLIs' defaults, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print(markdown_table(["model", "form", "irconv", "ovc", "irconv s", "ovc s", "time ratio", "irconv peak MiB",
                          "ovc peak MiB", "peak ratio"], rows))
    if time_ratios:
        print(f"\nmedian irconv/ovc ratio over the {len(time_ratios)} programs both convert: time "
              f"{statistics.median(time_ratios):.2f} (largest {max(time_ratios):.2f}), peak memory "
              f"{statistics.median(peak_ratios):.2f} (largest {max(peak_ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
