"""ONNX conformance: irconv against OpenVINO's own ONNX reader on the ONNX backend test cases.

Every node test case that the installed ``onnx`` package generates
(``onnx.backend.test.case.node.collect_testcases()``) and the model tests shipped inside
it (``pytorch-converted``, ``pytorch-operator``, ``simple``) are run twice on OpenVINO's
CPU plugin with an f32 inference precision hint:

* irconv: ``irconv.api.convert_model`` + ``save_model`` (IR v11, no fp16 compression);
* OpenVINO: ``openvino.Core().read_model(model.onnx)``, as a new user would.

Outputs are compared with the case's expected outputs at the case's tolerances, the way
``onnx.backend.test.runner`` does (same dtype, ``assert_allclose`` for floats, exact
for the rest). Cases whose data is not plain tensors (sequences, optionals, strings) are
counted apart. The cases run in worker processes (``irconv.testing.worker``, shared with the
TensorFlow harness and the accuracy sweeps) so a runtime crash costs one case.

Full run (documented command)::

    python tests/conformance/harness.py            # table + strict check against xfail.txt
    python tests/conformance/harness.py --sample 200 --only 'test_conv*'
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from irconv.runtime import compile_for_comparison
from irconv.testing.worker import Results, run_cases_in_workers

HERE = Path(__file__).resolve().parent
XFAIL_FILE = HERE / "xfail.txt"
MODEL_KINDS = ("pytorch-converted", "pytorch-operator", "simple")
ENGINES = ("irconv", "openvino")


# --------------------------------------------------------------------------- cases
@dataclass
class Case:
    name: str
    kind: str
    model: Any  # ModelProto
    data_sets: list[tuple[list[Any], list[Any]]]
    rtol: float
    atol: float

    @property
    def numeric(self) -> bool:
        for inputs, outputs in self.data_sets:
            for value in list(inputs) + list(outputs):
                if not isinstance(value, np.ndarray) or not (value.dtype.kind in "biuf" or _is_bf16(value)):
                    return False
        return bool(self.data_sets)


def _is_bf16(value: np.ndarray) -> bool:
    """An ``ml_dtypes.bfloat16`` array (NumPy's own kinds do not include it)."""
    return value.dtype.name == "bfloat16"


def collect_cases() -> dict[str, Case]:
    """Node cases generated in memory plus the model tests shipped with onnx."""
    from onnx.backend.test.case.node import collect_testcases
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            node_cases = collect_testcases()
    cases = {
        c.name: Case(c.name, "node", c.model, [_as_arrays(d) for d in c.data_sets], c.rtol, c.atol)
        for c in node_cases
    }
    for kind in MODEL_KINDS:
        for c in load_model_tests(kind=kind):
            model, data = _load_model_dir(Path(c.model_dir))
            cases[c.name] = Case(c.name, kind, model, data, c.rtol, c.atol)
    return cases


def _as_arrays(data_set: Any) -> tuple[list[Any], list[Any]]:
    """NumPy scalars and TensorProtos in generated data become arrays."""
    from onnx import TensorProto, numpy_helper

    def convert(value: Any) -> Any:
        if isinstance(value, np.generic):
            return np.asarray(value)
        if isinstance(value, TensorProto):
            try:
                return numpy_helper.to_array(value)
            except Exception:
                return value
        return value

    inputs, outputs = data_set
    return [convert(v) for v in inputs], [convert(v) for v in outputs]


def _load_model_dir(directory: Path) -> tuple[Any, list[tuple[list[Any], list[Any]]]]:
    import onnx

    model = onnx.load(str(directory / "model.onnx"))
    initializers = {t.name for t in model.graph.initializer}
    in_types = [v.type for v in model.graph.input if v.name not in initializers]
    out_types = [v.type for v in model.graph.output]
    data_sets = []
    for data_dir in sorted(directory.glob("test_data_set_*")):
        data_sets.append((_read_tensors(data_dir, "input", in_types), _read_tensors(data_dir, "output", out_types)))
    return model, data_sets


def _read_tensors(data_dir: Path, prefix: str, types: list[Any]) -> list[Any]:
    """``<prefix>_<i>.pb`` of one data set, as arrays (None for sequences and optionals)."""
    import onnx
    from onnx import numpy_helper

    values = []
    for i, t in enumerate(types):
        path = data_dir / f"{prefix}_{i}.pb"
        if not path.exists():
            break
        if not t.HasField("tensor_type"):
            values.append(None)  # sequences/optionals: not plain tensor data
            continue
        tensor = onnx.TensorProto()
        tensor.ParseFromString(path.read_bytes())
        values.append(numpy_helper.to_array(tensor))
    return values


def op_family(case: Case, schema_names: dict[str, str]) -> str:
    """The ONNX op a test name is about (``test_reduce_sum_keepdims`` -> ``ReduceSum``)."""
    if case.kind != "node":
        return f"[{case.kind}]"
    tokens = case.name[len("test_"):].split("_")
    for n in range(len(tokens), 0, -1):
        key = "".join(tokens[:n]).lower()
        if key in schema_names:
            return schema_names[key]
    ops = {n.op_type for n in case.model.graph.node}
    return sorted(ops)[0] if len(ops) == 1 else "?"


def schema_names() -> dict[str, str]:
    import onnx.defs

    return {s.name.lower(): s.name for s in onnx.defs.get_all_schemas_with_history()}


# ------------------------------------------------------------------------- running
def compare(expected: list[np.ndarray], actual: list[np.ndarray], rtol: float, atol: float) -> None:
    """Raise AssertionError when outputs differ (the rules of onnx's backend runner)."""
    if len(expected) != len(actual):
        raise AssertionError(f"{len(actual)} outputs, expected {len(expected)}")
    for i, (ref, out) in enumerate(zip(expected, actual, strict=True)):
        if ref.dtype != out.dtype:
            raise AssertionError(f"output {i}: dtype {out.dtype}, expected {ref.dtype}")
        if ref.shape != out.shape:
            raise AssertionError(f"output {i}: shape {out.shape}, expected {ref.shape}")
        if _is_bf16(ref):  # as onnx's runner: in f32, at least two bf16 ulps of relative tolerance
            np.testing.assert_allclose(out.astype(np.float32), ref.astype(np.float32), rtol=max(rtol, 2**-6), atol=atol)
        elif ref.dtype.kind == "f":
            np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(out, ref)


#: OpenVINO's element types that NumPy lacks and the ml_dtypes arrays ONNX's test data uses for them.
ML_DTYPES_ARRAYS = {"f8e5m2": "float8_e5m2", "f8e4m3": "float8_e4m3fn", "bf16": "bfloat16"}


def _runtime_input(port: Any, value: np.ndarray) -> Any:
    """A float8 or bf16 input as an OpenVINO tensor of that type holding the same bytes (the
    Python API would read an ml_dtypes array as something else); other inputs as they are."""
    import openvino as ov

    if port.get_element_type().get_type_name() not in ML_DTYPES_ARRAYS:
        return value
    tensor = ov.Tensor(port.get_element_type(), ov.Shape(list(value.shape)))
    # flat views: a 0-d array cannot be viewed as bytes
    np.asarray(tensor.data).reshape(-1).view(np.uint8)[...] = np.ascontiguousarray(value).reshape(-1).view(np.uint8)
    return tensor


def _runtime_output(port: Any, value: np.ndarray) -> np.ndarray:
    """A float8 or bf16 output (the Python API gives its bytes as another type) as the ml_dtypes array."""
    name = ML_DTYPES_ARRAYS.get(port.get_element_type().get_type_name())
    if name is None:
        return value
    import ml_dtypes

    return value.reshape(-1).view(np.uint8).view(getattr(ml_dtypes, name)).reshape(value.shape)


def infer(compiled: Any, model: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Feed inputs by name (OpenVINO drops unused inputs); outputs in the model's order."""
    initializers = {t.name for t in model.graph.initializer}
    names = [v.name for v in model.graph.input if v.name not in initializers]
    given = dict(zip(names, inputs, strict=False))
    feed = {}
    for port in compiled.inputs:
        match = next((n for n in port.get_names() if n in given), None)
        if match is None:
            raise AssertionError(f"runtime input {sorted(port.get_names())} is not a model input")
        feed[port] = _runtime_input(port, given[match])
    request = compiled.create_infer_request()
    request.infer(feed)
    by_name = {}
    for port in compiled.outputs:
        value = _runtime_output(port, np.array(request.get_tensor(port).data))
        for name in port.get_names():
            by_name[name] = value
    results = []
    for out in model.graph.output:
        if out.name not in by_name:
            raise AssertionError(f"model output {out.name!r} missing from the compiled model")
        results.append(by_name[out.name])
    return results


class Worker:
    """Runs cases in this process: one persistent OpenVINO Core and plugin host."""

    def __init__(self) -> None:
        import openvino as ov
        from irconv.plugins.manager import PluginHost

        self.core = ov.Core()
        self.host = PluginHost()

    def run(self, case: Case, engine: str, workdir: Path) -> str:
        model_path = workdir / "model.onnx"
        if not model_path.exists():
            import onnx

            onnx.save(case.model, str(model_path))
        stage = "convert"
        try:
            if engine == "irconv":
                from irconv.api import convert_model, save_model

                graph = convert_model(model_path, host=self.host)
                xml = workdir / "irconv.xml"
                save_model(graph, xml, host=self.host, compress_to_fp16=False)
                stage = "compile"
                model = self.core.read_model(str(xml))
            else:
                model = self.core.read_model(str(model_path))
                stage = "compile"
            compiled = compile_for_comparison(model, core=self.core)
            stage = "infer"
            for inputs, outputs in case.data_sets:
                actual = infer(compiled, case.model, inputs)
                stage = "compare"
                compare(outputs, actual, case.rtol, case.atol)
        except AssertionError as exc:
            return f"mismatch: {_first_line(exc)}"
        except Exception as exc:
            return f"{stage} error: {type(exc).__name__}: {_first_line(exc)}"
        return "pass"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[0] if lines else "")[:300]


def worker_main(names: list[str], engines: list[str]) -> None:
    """Worker process: print one JSON line per (case, engine) start and result."""
    cases = collect_cases()
    worker = Worker()
    for name in names:
        case = cases[name]
        with tempfile.TemporaryDirectory(prefix="conf_") as tmp:
            for engine in engines:
                print(json.dumps({"case": name, "engine": engine, "start": True}), flush=True)
                started = time.perf_counter()
                outcome = worker.run(case, engine, Path(tmp))
                seconds = time.perf_counter() - started
                print(json.dumps({"case": name, "engine": engine, "outcome": outcome, "seconds": seconds}), flush=True)


# ----------------------------------------------------------------------- reporting
def run_cases(names: list[str], engines: list[str], log: Path | None = None) -> Results:
    """Run ``names`` in worker processes (this script with ``--worker``), restarting after a crash.

    ``log`` receives every outcome as a JSON line as soon as it is known.
    """
    return run_cases_in_workers(
        names, engines, lambda listed: [sys.executable, __file__, "--worker", str(listed), "--engines", ",".join(engines)],
        log=log, stderr=sys.stderr)


def read_xfail(path: Path = XFAIL_FILE) -> dict[str, str]:
    """``test_id  # reason`` per line; ``#`` lines and blank lines are ignored."""
    listed: dict[str, str] = {}
    if not path.exists():
        return listed
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition("#")
        listed[name.strip()] = reason.strip()
    return listed


#: A reason starting with this marks a case whose outcome depends on the CPU OpenVINO runs on
#: (an instruction-set path of the CPU plugin computes it differently): it may pass or fail.
CPU_DEPENDENT = "OpenVINO, CPU-dependent:"


def check_xfail(results: Results, names: list[str], listed: dict[str, str]) -> list[str]:
    """Problems: unlisted failures and listed cases that pass (the list only shrinks), except
    the cases listed as CPU-dependent, which may do either."""
    problems = []
    for name in names:
        outcome = results.outcomes[name].get("irconv", "not run")
        if outcome == "pass" and name in listed and not listed[name].startswith(CPU_DEPENDENT):
            problems.append(f"XPASS {name}: passes now, remove it from {XFAIL_FILE.name}")
        elif outcome != "pass" and name not in listed:
            problems.append(f"FAIL  {name}: {outcome}")
    return problems


def table(results: Results, cases: dict[str, Case], names: list[str]) -> str:
    schemas = schema_names()
    families: dict[str, list[str]] = defaultdict(list)
    for name in names:
        families[op_family(cases[name], schemas)].append(name)
    lines = [f"{'op family':<32} {'cases':>5} {'irconv':>7} {'openvino':>8}"]
    for family in sorted(families, key=str.lower):
        members = families[family]
        lines.append(
            f"{family:<32} {len(members):>5} {results.passed('irconv', members):>7} "
            f"{results.passed('openvino', members):>8}"
        )
    total = len(names)
    ir, ov = results.passed("irconv", names), results.passed("openvino", names)
    lines.append(f"{'TOTAL':<32} {total:>5} {ir:>7} {ov:>8}")
    if total:
        lines.append(f"{'':<32} {'':>5} {100 * ir / total:>6.1f}% {100 * ov / total:>7.1f}%")
    return "\n".join(lines)


def select(cases: dict[str, Case], only: list[str], sample: int | None) -> tuple[list[str], int]:
    names = sorted(n for n, c in cases.items() if c.numeric)
    skipped = len(cases) - len(names)
    if only:
        names = [n for n in names if any(fnmatch.fnmatch(n, p) for p in only)]
    if sample and sample < len(names):
        step = len(names) / sample
        names = [names[int(i * step)] for i in range(sample)]
    return names, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--engines", default=",".join(ENGINES), help="irconv,openvino (default both)")
    parser.add_argument("--only", action="append", default=[], help="glob of test ids; repeatable")
    parser.add_argument("--sample", type=int, help="a fixed, evenly spread sample of N cases")
    parser.add_argument("--json", type=Path, help="write every outcome to this file")
    parser.add_argument("--log", type=Path, help="append outcomes as JSON lines while running")
    parser.add_argument("--no-strict", action="store_true", help="do not check the expected-failure list")
    parser.add_argument("--failures", action="store_true", help="print every irconv failure")
    args = parser.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    if args.worker:
        worker_main(Path(args.worker).read_text().split("\n"), engines)
        return 0
    started = time.perf_counter()
    cases = collect_cases()
    names, skipped = select(cases, args.only, args.sample)
    results = run_cases(names, engines, args.log)
    print(table(results, cases, names))
    print(f"({skipped} cases without plain tensor data not run; {time.perf_counter() - started:.0f} s; "
          + ", ".join(f"{e} {results.seconds[e]:.0f} s" for e in engines) + ")")
    if args.json:
        args.json.write_text(json.dumps(results.outcomes, indent=1, sort_keys=True))
    if args.failures:
        for name in names:
            outcome = results.outcomes[name].get("irconv")
            if outcome and outcome != "pass":
                print(f"{name}: {outcome}")
    if args.no_strict or "irconv" not in engines:
        return 0
    problems = check_xfail(results, names, read_xfail())
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
