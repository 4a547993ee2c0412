"""``irconv convert-many DIR|manifest.yaml``: convert a zoo, resumably, with a report.

A folder is searched for model files any installed loader recognises (a Caffe
``x.prototxt`` takes its sibling ``x.caffemodel`` as weights; a SavedModel directory is one
model; IR files are not re-converted). A manifest lists models explicitly::

    output_dir: ir                     # optional, relative to the manifest
    models:
      - path: resnet50.onnx
      - path: ssd/deploy.prototxt
        weights: ssd/ssd.caffemodel
        output: ssd.xml                # optional, relative to output_dir
        inputs: ["data[1,3,300,300]"]
        options: {caffe.custom_layers: map.xml}
        timeout: 600                   # seconds (default: --timeout, or none)
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irconv.cli.table import format_table
from irconv.errors import ExitCode, UsageError, UserError

if TYPE_CHECKING:
    from irconv.cli.batch import Job, Result
    from irconv.plugins.manager import PluginHost

EXECUTORS = ("process", "dask", "ray")


def add_parser(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "convert-many", help="convert every model of a folder or manifest, in parallel", allow_abbrev=False
    )
    p.add_argument("source", type=Path, help="a folder of models, or a manifest .yaml")
    p.add_argument("-o", dest="out", type=Path, help="output folder (default: ./irconv-out, or the manifest's)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="models converted at once")
    p.add_argument("--executor", choices=EXECUTORS, default="process", help="process pool (default), dask or ray")
    p.add_argument("--address", help="address of an existing Dask scheduler / Ray cluster (default: start a local one)")
    p.add_argument("--report", type=Path, help="per-model report, .json or .csv (default: <output folder>/report.json)")
    p.add_argument("--force", action="store_true", help="convert even models whose IR is up to date")
    p.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="give up on a model after this long (process executor)"
    )
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a plugin option for every model")
    p.add_argument("--disable-plugin", action="append", default=[], metavar="NAME")
    p.add_argument("-q", "--quiet", action="store_true", help="only the summary")
    p.add_argument("--debug", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from irconv.cli import batch
    from irconv.cli.batch import Result, is_up_to_date

    if args.jobs < 1:
        raise UsageError(f"-j {args.jobs}: give 1 or more (the number of models converted at once)")
    if args.timeout is not None and not args.timeout > 0:
        raise UsageError(f"--timeout {args.timeout:g}: give a positive number of seconds")
    host = batch.worker_host(tuple(args.disable_plugin))  # built once, inherited by forked workers
    global_options = tuple(_pair(item) for item in args.option)
    table = host.registry().options
    for key, _ in global_options:
        if table.by_name(key) is None:
            raise table.unknown(key, "--option")
    unrecognised: list[str] = []
    if args.source.is_dir():
        out = args.out or Path.cwd() / "irconv-out"
        jobs = discover(args.source, out, host, global_options, unrecognised)
    elif args.source.is_file():
        jobs, out = read_manifest(args.source, args.out, global_options)
    else:
        raise UserError(f"{args.source} is neither a folder of models nor a manifest file")
    if not jobs:
        raise UserError(f"no model that an installed loader recognises was found in {args.source}")
    if args.timeout is not None:
        jobs = [job if job.timeout else dataclasses.replace(job, timeout=args.timeout) for job in jobs]
    results: list[Result] = []
    todo = []
    for job in jobs:
        if not args.force and is_up_to_date(job):
            results.append(Result(job.name, job.model, job.output, "skipped"))
        else:
            todo.append(job)
    start = time.perf_counter()

    def done(result: Result) -> None:
        results.append(result)
        if not args.quiet:
            mark = "ok" if result.status == "ok" else "FAILED: " + result.error.replace("\n", "\n    ")
            print(f"[{len(results)}/{len(jobs)}] {result.name}: {mark} ({result.seconds:.2f} s)", flush=True)

    disabled = tuple(args.disable_plugin)
    interrupted = False
    try:
        if todo:
            workers = min(args.jobs, len(todo))
            if args.executor == "dask":
                batch.run_dask(todo, workers, disabled, done, args.address)
            elif args.executor == "ray":
                batch.run_ray(todo, workers, disabled, done, args.address)
            elif workers == 1:
                batch.run_sequential(todo, workers, disabled, done)
            else:
                batch.run_processes(todo, workers, disabled, done)
    except KeyboardInterrupt:  # the workers are stopped; what finished is reported
        interrupted = True
    elapsed = time.perf_counter() - start
    order = {job.name: i for i, job in enumerate(jobs)}
    results.sort(key=lambda r: order.get(r.name, 0))
    report = args.report or out / "report.json"
    write_report(results, report)
    print(summary(results, elapsed, report))
    if unrecognised:
        shown = ", ".join(unrecognised[:5]) + (", ..." if len(unrecognised) > 5 else "")
        print(f"not converted: {len(unrecognised)} file(s) no installed loader recognises ({shown})")
    if interrupted:
        print(f"irconv: interrupted: {len(results)} of {len(jobs)} model(s) finished, the others were not "
              f"converted; report: {report}", file=sys.stderr)
        return ExitCode.INTERRUPTED
    return ExitCode.USER_ERROR if any(r.status == "failed" for r in results) else 0


def _pair(item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"bad --option {item!r}: expected NAME=VALUE")
    return key.strip(), value


def discover(folder: Path, out: Path, host: PluginHost, options: tuple[tuple[str, str], ...],
             unrecognised: list[str] | None = None) -> list[Job]:
    """Every model under ``folder`` some installed loader (other than the IR reader) accepts;
    the other files' names go to ``unrecognised``."""
    loaders = [p.item for p in host.registry().loaders if p.item.framework != "ir"]
    out_resolved = out.resolve()
    jobs: list[Job] = []
    for directory, subdirs, files in os.walk(folder):
        here = Path(directory)
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and (here / d).resolve() != out_resolved)
        if (here / "saved_model.pb").is_file() or (here / "saved_model.pbtxt").is_file():
            subdirs[:] = []
            jobs.append(_job(here, folder, out, None, options))
            continue
        names = set(files)
        for name in sorted(files):
            path = here / name
            if name.startswith(".") or path.suffix.lower() == ".caffemodel" and f"{path.stem}.prototxt" in names:
                continue
            weights = None
            if path.suffix.lower() == ".prototxt":
                if f"{path.stem}.caffemodel" not in names:
                    continue  # a network without weights (or a solver): nothing to convert
                weights = here / f"{path.stem}.caffemodel"
            if any(loader.accepts(path) for loader in loaders):
                jobs.append(_job(path, folder, out, weights, options))
            elif unrecognised is not None and not _is_ir_output(path):
                unrecognised.append(str(path.relative_to(folder)))
    return jobs


def _is_ir_output(path: Path) -> bool:
    """IR files and reports a previous run wrote beside the models are not models to report."""
    return path.suffix.lower() in (".xml", ".bin") or path.name in ("report.json", "report.csv")


def _job(path: Path, root: Path, out: Path, weights: Path | None, options: tuple[tuple[str, str], ...]) -> Job:
    from irconv.cli.batch import Job

    relative = path.relative_to(root)
    stem = relative.with_suffix("") if path.is_file() else relative
    output = out / f"{stem}.xml" if str(stem) != "." else out / f"{path.resolve().name}.xml"
    return Job(str(relative), str(path), str(output), weights=str(weights) if weights else None, options=options)


def read_manifest(path: Path, out: Path | None, options: tuple[tuple[str, str], ...]) -> tuple[list[Job], Path]:
    try:
        import yaml
    except ImportError:
        raise UserError("reading a manifest needs PyYAML: pip install pyyaml (or give a folder)") from None
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise UserError(f"cannot read manifest {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise UserError(f"manifest {path} must be a mapping with a 'models' list")
    base = path.parent
    from irconv.cli.batch import Job

    out = out or base / str(data.get("output_dir", "irconv-out"))
    jobs = []
    for i, entry in enumerate(data["models"], 1):
        if isinstance(entry, str):
            entry = {"path": entry}
        if not isinstance(entry, dict) or "path" not in entry:
            raise UserError(f"manifest {path}: model #{i} needs a 'path'")
        model = base / str(entry["path"])
        output = out / str(entry.get("output", Path(str(entry["path"])).with_suffix(".xml")))
        per_model = tuple((str(k), str(v)) for k, v in (entry.get("options") or {}).items())
        jobs.append(
            Job(
                name=str(entry.get("name", entry["path"])),
                model=str(model),
                output=str(output),
                framework=entry.get("framework"),
                weights=str(base / str(entry["weights"])) if entry.get("weights") else None,
                inputs=tuple(str(s) for s in entry.get("inputs", ())),
                options=options + per_model,
                timeout=float(entry["timeout"]) if entry.get("timeout") else None,
            )
        )
    return jobs, out


def write_report(results: list[Result], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [r.row() for r in results]
    if path.suffix.lower() == ".csv":
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        path.write_text(json.dumps(rows, indent=2) + "\n")


def summary(results: list[Result], elapsed: float, report: Path) -> str:
    rows = [
        [r.name, r.status, f"{r.seconds:.2f}", f"{r.peak_mb:.0f}" if r.peak_mb else "-", r.layers or "-",
         " ".join(r.error.split())[:160]]
        for r in results
    ]
    table = format_table(["model", "status", "s", "peak MB", "layers", "error"], rows)
    counts = {s: sum(1 for r in results if r.status == s) for s in ("ok", "skipped", "failed")}
    tail = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    return f"{table}\n{len(results)} model(s): {tail} in {elapsed:.2f} s; report: {report}"
