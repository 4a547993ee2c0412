"""``--verify``: run the emitted IR (OpenVINO) and the source model (its own runtime) on the
same inputs and compare every output.

The source runtime comes from the front end's ``Verifier`` (hook ``verify_model``); OpenVINO
is imported only inside ``run_ir``. Neither is needed to install irconv: when one is missing
the error says what to install.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from irconv import narrow_float
from irconv.contract.options import ConversionOptions
from irconv.errors import UserError
from irconv.graph import Graph
from irconv.plugins.registry import Registry
from irconv.types import ElementType

#: Default tolerance: the largest error allowed, relative to the largest magnitude of the
#: reference output (at least 1). f16-compressed weights stay well inside it.
DEFAULT_TOLERANCE = 1e-2


class VerificationFailed(UserError):
    """The IR's outputs differ from the source framework's beyond the tolerance."""

    exit_code = 4


@dataclass(frozen=True)
class OutputCheck:
    """One output compared: the largest absolute and relative error."""

    name: str
    shape: tuple[int, ...]
    max_abs: float
    max_rel: float
    ok: bool


def random_inputs(graph: Graph, seed: int) -> dict[str, np.ndarray]:
    """Seeded inputs of the model's shapes (dynamic dimensions become 1), by tensor name."""
    rng = np.random.default_rng(seed)
    inputs: dict[str, np.ndarray] = {}
    for node in graph.parameters():
        data = node.out_port(0).data
        name = data.names[0] if data.names else node.name
        if data.shape is None:
            raise UserError(f"--verify: input {name!r} has an unknown rank; give its shape with --input")
        shape = tuple(1 if d is None else d for d in data.shape)
        element_type = data.element_type if data.element_type is not ElementType.dynamic else ElementType.f32
        dtype = element_type.numpy
        if element_type is ElementType.boolean:
            value = rng.integers(0, 2, shape).astype(bool)
        elif element_type.is_integer:
            value = rng.integers(0, 3, shape).astype(dtype)
        else:
            value = narrow_float.as_array(rng.standard_normal(shape), dtype)
        inputs[name] = value
    return inputs


def read_inputs(path: Path) -> dict[str, np.ndarray]:
    """``--verify-inputs file.npz``: arrays keyed by input tensor name (``np.savez``)."""
    what = f"--verify-inputs {path}"
    if not path.is_file():
        raise UserError(f"{what}: no such file")
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:  # empty, truncated, pickled or not NumPy at all
        raise UserError(f"{what}: not a .npz file of arrays ({exc or type(exc).__name__}); write one with "
                        "numpy.savez(path, input_name=array, ...)") from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise UserError(f"{what}: a single array (.npy); inputs need names: numpy.savez(path, input_name=array)")
    with loaded as archive:
        try:
            return {name: archive[name] for name in archive.files}
        except (OSError, ValueError, EOFError) as exc:
            raise UserError(f"{what}: an array in it cannot be read: {exc}") from None


def missing_requirements(registry: Registry, framework: str) -> str | None:
    """What to install before ``--verify`` can run for ``framework``, or None."""
    provided = registry.verifiers.get(framework)
    if provided is None:
        return f"no installed plugin can run {framework} models for --verify (no verify_model hook for {framework!r})"
    modules = provided.item.missing()
    packages = [provided.item.install or " ".join(modules)] if modules else []
    if importlib.util.find_spec("openvino") is None:
        modules.append("openvino")
        packages.append("openvino")
    if modules:
        return f"--verify needs {', '.join(modules)}, not installed here: pip install {' '.join(packages)}"
    return None


def run_ir(xml: Path, inputs: Mapping[str, np.ndarray], registry: Registry) -> list[tuple[set[str], np.ndarray]]:
    """Run the IR on OpenVINO CPU at f32 precision (whatever the CPU's default), with the
    plugins' runtime extensions; outputs in IR order with their names."""
    from irconv.runtime import compile_for_comparison

    compiled = compile_for_comparison(xml, registry=registry)
    feed: dict[Any, np.ndarray] = {}
    for port in compiled.inputs:
        names = port.get_names()
        match = next((n for n in inputs if n in names), None)
        if match is None:
            raise UserError(f"--verify: no value for the IR input {sorted(names)} (inputs given: {sorted(inputs)})")
        feed[port] = inputs[match]
    request = compiled.create_infer_request()
    request.infer(feed)
    return [(set(port.get_names()), np.array(request.get_tensor(port).data)) for port in compiled.outputs]


def compare(name: str, actual: np.ndarray, expected: np.ndarray, tolerance: float) -> OutputCheck:
    """Max absolute error, and that error relative to the reference's largest magnitude."""
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        if actual.size != expected.size:
            return OutputCheck(name, tuple(actual.shape), float("inf"), float("inf"), False)
        actual = actual.reshape(expected.shape)
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(e)
    diff = np.where(both_nan, 0.0, np.abs(a - e))
    diff = np.where(np.isnan(diff), np.inf, diff)
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = float(np.nanmax(np.abs(e))) if e.size and not np.all(np.isnan(e)) else 0.0
    max_rel = max_abs / max(scale, 1e-12) if max_abs else 0.0
    ok = max_abs == 0.0 if expected.dtype.kind in "biu" else max_abs <= tolerance * max(scale, 1.0)
    return OutputCheck(name, tuple(expected.shape), max_abs, max_rel, ok)


def verify(
    model: Path,
    xml: Path,
    framework: str,
    inputs: dict[str, np.ndarray],
    options: ConversionOptions,
    registry: Registry,
    tolerance: float = DEFAULT_TOLERANCE,
) -> list[OutputCheck]:
    """Compare every output of the IR with the source model's, on ``inputs``."""
    problem = missing_requirements(registry, framework)
    if problem:
        raise UserError(problem)
    verifier = registry.verifiers[framework].item
    try:
        reference = verifier.run_reference(model, inputs, options)
    except UserError:
        raise
    except Exception as exc:
        raise UserError(f"--verify: {framework} could not run {model}: {type(exc).__name__}: {exc}") from exc
    try:
        produced = run_ir(xml, inputs, registry)
    except UserError:
        raise
    except Exception as exc:
        from irconv.runtime import runtime_reason

        raise VerificationFailed(
            f"--verify: OpenVINO could not compile or run the IR {xml}: {runtime_reason(exc)}. irconv wrote a "
            "form the runtime refuses: please report it (rerun with --debug for the traceback); the IR was kept"
        ) from exc
    checks = []
    ordered = list(reference.items())
    for i, (names, actual) in enumerate(produced):
        key = next((n for n in sorted(names) if n in reference), None)
        if key is None and len(produced) == len(reference):
            key = ordered[i][0]  # the framework names its outputs differently: match by position
        if key is None:
            raise UserError(f"--verify: the {framework} runtime gave no output named {sorted(names)}")
        checks.append(compare(key, actual, reference[key], tolerance))
    return checks


def report_lines(checks: list[OutputCheck], tolerance: float) -> list[str]:
    from irconv.cli.table import format_table

    rows = [
        [
            c.name,
            "x".join(map(str, c.shape)) or "scalar",
            f"{c.max_abs:.3g}",
            f"{c.max_rel:.3g}",
            "ok" if c.ok else "FAIL",
        ]
        for c in checks
    ]
    table = format_table(["output", "shape", "max abs error", "max rel error", f"tol {tolerance:g}"], rows)
    return table.splitlines()
