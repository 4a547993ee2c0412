"""TensorFlow per-op conformance: irconv against OpenVINO's own converter, TensorFlow as the truth.

Every case of ``cases.py`` (the ops irconv-tf has extractors for plus the ops OpenVINO's
TensorFlow front end documents) is traced with ``tf.function`` on seeded random inputs,
frozen to a GraphDef (TF1 cases: a ``tf.compat.v1`` graph), and TensorFlow's own outputs are
recorded. Then, in the same run, on OpenVINO's CPU plugin (f32 inference precision):

* irconv: ``irconv.convert_model`` + ``save_model`` (IR v11, no fp16 compression), read back;
* ovc:    ``openvino.convert_model(frozen graph)``, as a new user would.

Each output must have TensorFlow's element type and shape exactly, then its values
(floats: rtol 1e-4 for f32, 1e-3 for f16, 1e-6 for f64; integers and booleans exact; random
ops: type and shape only). Cases run in worker processes (``irconv.testing.worker``) so a runtime crash costs one case;
a case TensorFlow itself refuses is ``invalid`` and counted for nobody.

Full run (documented command)::

    python tests/tf_conformance/harness.py                 # table, both counts, strict xfail check
    python tests/tf_conformance/harness.py --only 'Conv*' --failures
    python tests/tf_conformance/harness.py --write-xfail   # regenerate xfail.txt from this run
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from irconv.runtime import compile_for_comparison
from irconv.testing.worker import Results, crash_outcomes, run_cases_in_workers

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

HERE = Path(__file__).resolve().parent
XFAIL_FILE = HERE / "xfail.txt"
ENGINES = ("irconv", "ovc")
#: (rtol, atol) per floating element type; a case's own atol wins over the atol.
TOLERANCES = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2), "float32": (1e-4, 1e-5), "float64": (1e-6, 1e-7)}


def _load(name: str, path: Path) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def cases_module() -> ModuleType:
    return _load("irconv_tf_conformance_cases", HERE / "cases.py")


def onnx_harness() -> ModuleType:
    """The ONNX conformance harness: its expected-failure file reader and check."""
    return _load("irconv_onnx_conformance_harness", HERE.parent / "conformance" / "harness.py")


def tf_helpers() -> ModuleType:
    """tests/tf/conftest.py: ``save_module`` and ``assert_same_as_tensorflow``."""
    return _load("irconv_tf_conformance_tf_conftest", HERE.parent / "tf" / "conftest.py")


# ---------------------------------------------------------------------------- freezing
class Invalid(Exception):
    """TensorFlow itself refuses the case: there is nothing to compare with."""


@dataclass
class Built:
    path: Path
    input_names: list[str]
    inputs: list[np.ndarray]
    expected: list[np.ndarray]
    output_names: list[str]  # TF tensor names ("Identity:0"); empty: match by position


def build(case: Any, workdir: Path) -> Built:
    """Freeze ``case`` into ``workdir`` and record TensorFlow's outputs (raises Invalid)."""
    import tensorflow as tf

    names = [f"in{k}" for k in range(len(case.inputs))]
    inputs = [np.asarray(x) for x in case.inputs]
    try:
        if case.tf1:
            built = _build_tf1(case, names, inputs, workdir)
        elif case.variables is not None:
            frozen = tf_helpers().save_module(case.fn, case.variables, inputs, workdir / "saved_model")
            built = Built(frozen.path, names, inputs, frozen.expected, [])
            ops = frozen.ops
        else:
            from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

            specs = [
                tf.TensorSpec([None] * x.ndim if case.dynamic else x.shape, tf.as_dtype(x.dtype), name=n)
                for x, n in zip(inputs, names, strict=True)
            ]
            concrete = tf.function(case.fn).get_concrete_function(*specs)
            frozen_fn = convert_variables_to_constants_v2(concrete)
            graph_def = frozen_fn.graph.as_graph_def()
            path = workdir / "model.pb"
            path.write_bytes(graph_def.SerializeToString())
            result = frozen_fn(*[tf.constant(x) for x in inputs])
            expected = [np.asarray(t) for t in tf.nest.flatten(result)]
            built = Built(path, names, inputs, expected, [t.name for t in frozen_fn.outputs])
    except Exception as exc:
        raise Invalid(f"TensorFlow refuses it: {type(exc).__name__}: {_first_line(exc)}") from exc
    if not case.variables:
        ops = graph_ops(built.path)
    if case.op not in ops:
        raise Invalid(f"the graph has no {case.op} node: {sorted(ops)[:12]}")
    return built


def _build_tf1(case: Any, names: list[str], inputs: list[np.ndarray], workdir: Path) -> Built:
    """A TF1 graph with v1 control flow and TensorArrayV3, run in a Session."""
    import tensorflow as tf
    from tensorflow.python.ops import control_flow_util

    was_v2 = control_flow_util.ENABLE_CONTROL_FLOW_V2
    tf.compat.v1.disable_control_flow_v2()
    try:
        graph = tf.Graph()
        with graph.as_default():
            holders = [
                tf.compat.v1.placeholder(tf.as_dtype(x.dtype), x.shape, name=n)
                for x, n in zip(inputs, names, strict=True)
            ]
            outs = [tf.identity(t, name=f"out{k}") for k, t in enumerate(tf.nest.flatten(case.fn(*holders)))]
            with tf.compat.v1.Session(graph=graph) as session:
                expected = session.run(outs, dict(zip(holders, inputs, strict=True)))
    finally:
        if was_v2:
            tf.compat.v1.enable_control_flow_v2()
    path = workdir / "model.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return Built(path, names, inputs, [np.asarray(e) for e in expected], [t.name for t in outs])


def graph_ops(path: Path) -> set[str]:
    from tensorflow.core.framework import graph_pb2

    graph_def = graph_pb2.GraphDef()
    graph_def.ParseFromString(path.read_bytes())
    ops = {n.op for n in graph_def.node}
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    return ops


# ----------------------------------------------------------------------------- running
def run_compiled(compiled: Any, built: Built) -> list[np.ndarray]:
    """Feed inputs by name; outputs by TF tensor name (or by position when names are lost)."""
    feed = {}
    for port in compiled.inputs:
        port_names = port.get_names()
        match = next((k for k, n in enumerate(built.input_names) if n in port_names or f"{n}:0" in port_names), None)
        if match is None:
            raise AssertionError(f"runtime input {sorted(port_names)} is not a model input")
        feed[port] = built.inputs[match]
    request = compiled.create_infer_request()
    request.infer(feed)
    ports = list(compiled.outputs)
    results = []
    for k, name in enumerate(built.output_names or [""] * len(built.expected)):
        bare = name.split(":")[0]
        port = next((p for p in ports if name and (name in p.get_names() or bare in p.get_names())), None)
        if port is None:
            if len(ports) != len(built.expected):
                raise AssertionError(f"{len(ports)} outputs, TensorFlow has {len(built.expected)}")
            port = ports[k]
        results.append(np.array(request.get_tensor(port).data))
    return results


def compare(case: Any, built: Built, got: list[np.ndarray]) -> None:
    """Element types and shapes exactly, then values at the tolerance of the element type."""
    assert_same = tf_helpers().assert_same_as_tensorflow
    if case.check == "shape":
        assert len(got) == len(built.expected), f"{len(got)} outputs, TensorFlow has {len(built.expected)}"
        for k, (g, e) in enumerate(zip(got, built.expected, strict=True)):
            assert g.dtype == e.dtype, f"output {k}: element type {g.dtype} != TensorFlow's {e.dtype}"
            assert g.shape == e.shape, f"output {k}: shape {g.shape} != TensorFlow's {e.shape}"
        return
    dtypes = [e.dtype.name for e in built.expected]
    rtol, atol = max((TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes), default=(0.0, 0.0))
    if case.atol is not None:
        atol = max(atol, case.atol)
    assert_same(got, built.expected, atol=atol, rtol=rtol)


class Worker:
    """Runs cases in this process: one OpenVINO Core and one irconv plugin host."""

    def __init__(self) -> None:
        import openvino as ov
        from irconv.plugins.manager import PluginHost

        self.ov = ov
        self.core = ov.Core()
        self.host = PluginHost()

    def run(self, case: Any, built: Built, engine: str, workdir: Path) -> str:
        stage = "convert"
        try:
            if engine == "irconv":
                import irconv

                graph = irconv.convert_model(built.path, host=self.host, **case.options)
                xml = workdir / "irconv.xml"
                irconv.save_model(graph, xml, host=self.host, compress_to_fp16=False)
                stage = "read"
                model = self.core.read_model(str(xml))
            else:
                model = self.ov.convert_model(str(built.path))
            stage = "compile"
            compiled = compile_for_comparison(model, core=self.core)
            stage = "infer"
            got = run_compiled(compiled, built)
            stage = "compare"
            compare(case, built, got)
        except AssertionError as exc:
            return f"mismatch: {_first_line(exc)}"
        except Exception as exc:
            return f"{stage} error: {type(exc).__name__}: {_first_line(exc)}"
        return "pass"


_BOILERPLATE = ("Exception from src/", "Check '", "Traceback", "[ GENERAL_ERROR ]", "Summary:", "-----")


def _first_line(exc: BaseException) -> str:
    """The first informative line (OpenVINO's 'Exception from src/...' headers skipped)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    useful = [line for line in lines if not line.startswith(_BOILERPLATE)]
    return " ".join((useful or lines or [""])[:2])[:300]


def worker_main(ids: list[str], engines: list[str]) -> None:
    """Worker process: one JSON line per (case, engine) start and result."""
    cases = cases_module().collect_cases()
    worker = Worker()
    for case_id in ids:
        case = cases.get(case_id)
        if case is None:  # tests/tf/test_tf_ops.py changed while the run was going on
            for engine in engines:
                print(json.dumps({"case": case_id, "engine": engine, "outcome": "invalid: no longer generated"}))
            continue
        with tempfile.TemporaryDirectory(prefix="tfconf_") as tmp:
            print(json.dumps({"case": case_id, "engine": "tensorflow", "start": True}), flush=True)
            try:
                built = build(case, Path(tmp))
            except Invalid as exc:
                for engine in engines:
                    print(json.dumps({"case": case_id, "engine": engine, "outcome": f"invalid: {exc}", "seconds": 0}))
                continue
            for engine in engines:
                print(json.dumps({"case": case_id, "engine": engine, "start": True}), flush=True)
                started = time.perf_counter()
                outcome = worker.run(case, built, engine, Path(tmp))
                seconds = time.perf_counter() - started
                record = {"case": case_id, "engine": engine, "outcome": outcome, "seconds": seconds}
                print(json.dumps(record), flush=True)


def run_cases(ids: list[str], engines: list[str], log: Path | None = None, jobs: int = 1) -> Results:
    """Run ``ids`` in ``jobs`` worker processes at once (this script with ``--worker``),
    restarting a worker after a crash."""
    stderr = (
        open(os.environ["IRCONV_TF_CONFORMANCE_STDERR"], "a")  # noqa: SIM115
        if "IRCONV_TF_CONFORMANCE_STDERR" in os.environ
        else subprocess.DEVNULL
    )
    script = str(Path(__file__).resolve())
    return run_cases_in_workers(
        ids, engines, lambda listed: [sys.executable, script, "--worker", str(listed), "--engines", ",".join(engines)],
        log=log, jobs=jobs, stderr=stderr, crashed=_crash_outcomes)


def _crash_outcomes(died_in: str, engines: Sequence[str], returncode: int) -> dict[str, str]:
    """A worker dead while TensorFlow built the case: the case is invalid, not a crash of an engine."""
    if died_in == "tensorflow":
        return dict.fromkeys(engines, f"invalid: TensorFlow crashed building it (exit {returncode})")
    return crash_outcomes(died_in, engines, returncode)


# --------------------------------------------------------------------------- reporting
def valid(results: Results, ids: Iterable[str]) -> list[str]:
    return [n for n in ids if not results.outcomes[n].get("irconv", "").startswith("invalid")]


def table(results: Results, cases: dict[str, Any], ids: list[str], extractor_ops: set[str], ov_ops: set[str]) -> str:
    by_op: dict[str, list[str]] = defaultdict(list)
    for n in valid(results, ids):
        by_op[cases[n].op].append(n)
    lines = [f"{'TF op':<36} {'src':<4} {'cases':>5} {'irconv':>7} {'ovc':>5}"]
    for op in sorted(by_op, key=str.lower):
        members = by_op[op]
        src = ("e" if op in extractor_ops else "-") + ("o" if op in ov_ops else "-")
        lines.append(
            f"{op:<36} {src:<4} {len(members):>5} {results.passed('irconv', members):>7} "
            f"{results.passed('ovc', members):>5}"
        )
    counted = valid(results, ids)
    total = len(counted)
    ir, ov = results.passed("irconv", counted), results.passed("ovc", counted)
    lines.append(f"{'TOTAL':<36} {'':<4} {total:>5} {ir:>7} {ov:>5}")
    if total:
        lines.append(f"{'':<36} {'':<4} {'':>5} {100 * ir / total:>6.1f}% {100 * ov / total:>4.1f}%")
    lines.append("src: e = irconv-tf has an extractor, o = in OpenVINO's documented TF op list")
    return "\n".join(lines)


def coverage_note(cases: dict[str, Any], extractor_ops: set[str], ov_ops: set[str]) -> str:
    """Ops of the union with no case: those in NO_CASE (with reasons) and any other (a gap)."""
    no_case = cases_module().NO_CASE
    with_case = {c.op for c in cases.values()}
    missing = sorted((extractor_ops | ov_ops) - with_case - set(no_case))
    excused = sorted(op for op in no_case if op not in with_case)
    text = f"ops: {len(extractor_ops | ov_ops)} in the union ({len(extractor_ops)} with extractors, {len(ov_ops)} in OpenVINO's list), {len(with_case)} with cases"
    text += f"; {len(excused)} without a case by design (cases.NO_CASE)"
    if missing:
        text += f"; NO CASE YET: {', '.join(missing)}"
    return text


def reason(case_id: str, outcomes: dict[str, str], op: str) -> str:
    """One-line expected-failure reason naming the cause (irconv or OpenVINO)."""
    ours = outcomes.get("irconv", "")
    theirs = outcomes.get("ovc", "")
    if "UnsupportedOpsError" in ours or "have no extractor" in ours:
        named = ours.rsplit(":", 1)[-1].strip()  # "... have no extractor: tf LinSpace x1: LinSpace"
        return f"irconv: no extractor for {named if named and ' ' not in named else op} yet"
    kind = ours.split(":", 1)[0]
    detail = ours.split(":", 1)[1].strip() if ":" in ours else ours
    detail = re.sub(r"'[^']*'", "'...'", detail.split("\n")[0])[:140]  # node names apart, one group
    if theirs != "pass" and kind == "mismatch" and theirs.startswith("mismatch"):
        return f"OpenVINO: the CPU plugin disagrees with TensorFlow for both converters' IRs ({detail})"
    if kind.startswith(("compile error", "infer error", "crash")) and theirs.split(":", 1)[0] == kind:
        return f"OpenVINO: {kind} for both converters ({detail})"
    return f"irconv: {kind} ({detail})"


def write_xfail(results: Results, cases: dict[str, Any], ids: list[str], path: Path, commit: str) -> None:
    groups: dict[str, list[str]] = defaultdict(list)
    for n in valid(results, ids):
        if results.outcomes[n].get("irconv") != "pass":
            groups[reason(n, results.outcomes[n], cases[n].op)].append(n)
    lines = [
        "# TensorFlow per-op conformance: cases irconv is expected to fail, keyed by case id, with the reason.",
        "# Strict: a listed case that passes fails the run (remove it); an unlisted failure fails too.",
        "# Each reason names the cause: 'irconv:' (converter) or 'OpenVINO:' (both converters' IRs disagree",
        "# with TensorFlow the same way on the CPU plugin, or both fail to compile).",
        f"# Generated by: python tests/tf_conformance/harness.py --write-xfail  (measured at commit {commit})",
        "",
    ]
    for why in sorted(groups, key=lambda r: (-len(groups[r]), r)):
        lines.append(f"# --- {why} ({len(groups[why])})")
        lines.extend(f"{n}  # {why}" for n in sorted(groups[why]))
        lines.append("")
    path.write_text("\n".join(lines))


def read_xfail(path: Path = XFAIL_FILE) -> dict[str, str]:
    return onnx_harness().read_xfail(path)


def check_xfail(results: Results, ids: list[str], listed: dict[str, str]) -> list[str]:
    """Unlisted irconv failures and listed cases that pass (invalid cases are not checked)."""
    return onnx_harness().check_xfail(results, valid(results, ids), listed)


def read_outcomes(path: Path) -> dict[str, dict[str, str]]:
    """Outcomes from a --json file or a --log file (JSON lines)."""
    text = path.read_text()
    if text.lstrip().startswith("{\n") or not text.lstrip().startswith('{"case"'):
        return dict(json.loads(text))
    outcomes: dict[str, dict[str, str]] = defaultdict(dict)
    for line in text.splitlines():
        if line.strip():
            record = json.loads(line)
            outcomes[record["case"]][record["engine"]] = record["outcome"]
    return dict(outcomes)


def select(cases: dict[str, Any], only: list[str], sample: int | None) -> list[str]:
    ids = sorted(cases)
    if only:
        ids = [n for n in ids if any(fnmatch.fnmatch(n, p) for p in only)]
    if sample and sample < len(ids):
        step = len(ids) / sample
        ids = [ids[int(k * step)] for k in range(sample)]
    return ids


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--engines", default=",".join(ENGINES), help="irconv,ovc (default both)")
    parser.add_argument("--only", action="append", default=[], help="glob of case ids (Op/variant); repeatable")
    parser.add_argument("--sample", type=int, help="a fixed, evenly spread sample of N cases")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes at once (default 2)")
    parser.add_argument("--json", type=Path, help="write every outcome to this file")
    parser.add_argument("--log", type=Path, help="append outcomes as JSON lines while running")
    parser.add_argument("--no-strict", action="store_true", help="do not check the expected-failure list")
    parser.add_argument("--failures", action="store_true", help="print every irconv (and ovc) failure")
    parser.add_argument("--write-xfail", action="store_true", help="rewrite xfail.txt from this run's failures")
    parser.add_argument(
        "--reuse",
        type=Path,
        help="a --json file (or --log file) of an earlier run: its outcomes are kept, only missing ones are run",
    )
    args = parser.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    if args.worker:
        worker_main([n for n in Path(args.worker).read_text().split("\n") if n], engines)
        return 0
    started = time.perf_counter()
    module = cases_module()
    cases = module.collect_cases()
    extractor_ops, ov_ops = set(module.registered_ops()), set(module.openvino_ops())
    ids = select(cases, args.only, args.sample)
    commit = git_commit()
    earlier_runs = read_outcomes(args.reuse) if args.reuse else {}
    if not engines:  # only a report of the earlier run
        ids = [n for n in ids if n in earlier_runs]
    to_run = [n for n in ids if not all(e in earlier_runs.get(n, {}) for e in engines)]  # --reuse resumes
    results = run_cases(to_run, engines, args.log, args.jobs) if engines else Results()
    if args.reuse:
        for n, earlier in earlier_runs.items():
            if n in cases:
                for e, outcome in earlier.items():
                    results.outcomes[n].setdefault(e, outcome)
        engines = sorted({e for n in ids for e in results.outcomes[n]}, key=ENGINES.index)
    print(table(results, cases, ids, extractor_ops, ov_ops))
    invalid = len(ids) - len(valid(results, ids))
    print(coverage_note(cases, extractor_ops, ov_ops))
    print(
        f"({len(ids)} cases, {invalid} refused by TensorFlow itself and not counted; commit {commit}; "
        f"{time.perf_counter() - started:.0f} s; " + ", ".join(f"{e} {results.seconds[e]:.0f} s" for e in engines) + ")"
    )
    if args.json:
        args.json.write_text(json.dumps(results.outcomes, indent=1, sort_keys=True))
    if args.failures:
        for n in ids:
            for e in engines:
                outcome = results.outcomes[n].get(e, "")
                if outcome != "pass" and not outcome.startswith("invalid"):
                    print(f"{e:<6} {n}: {outcome}")
    if args.write_xfail:
        write_xfail(results, cases, ids, XFAIL_FILE, commit)
        print(f"wrote {XFAIL_FILE}")
        return 0
    if args.no_strict or "irconv" not in engines:
        return 0
    problems = check_xfail(results, ids, read_xfail())
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
