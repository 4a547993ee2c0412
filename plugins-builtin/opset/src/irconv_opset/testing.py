"""The per-op runtime check: build a one-op graph, infer it, emit IR, run it in OpenVINO.

Cases are ``OpCase`` records listed in ``tests/cases_<family>.py`` files. For each case
``check_case`` compares the runtime's output shapes and element types with the op's own
``infer``, and the runtime's values with the op's ``evaluate`` (where it has one).
OpenVINO is imported only inside the functions that run it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from irconv import infer_graph
from irconv.graph import Graph, Node, OutPort
from irconv.ops import Op
from irconv.plugins.manager import PluginHost
from irconv.testing import GraphBuilder
from irconv.types import ElementType, MaybeShape


@dataclass(frozen=True)
class ConstInput:
    """An op input fed by a Const node rather than a Parameter."""

    value: np.ndarray


def const(array: Any) -> ConstInput:
    """Mark a case input as a constant (``np.asarray`` of ``array``, dtype kept)."""
    return ConstInput(np.asarray(array))


@dataclass
class OpCase:
    """One op instance and its inputs: an ndarray is a Parameter, ``const(arr)`` a Const,
    ``None`` an absent optional input."""

    op: Op
    inputs: list[np.ndarray | ConstInput | None]
    dynamic: bool = True  # also run with every Parameter dim dynamic (where the op allows)
    rtol: float = 1e-5
    atol: float = 1e-5
    id: str = ""  # suffix for the test id when an op has several cases
    check_values: bool = True  # False only where outputs are implementation-defined

    def base_id(self) -> str:
        op = self.op
        return f"{op.type}-{op.version}" + (f"-{self.id}" if self.id else "")

    def has_parameters(self) -> bool:
        return any(isinstance(v, np.ndarray) for v in self.inputs)

    def values(self) -> list[np.ndarray]:
        """The input arrays as the op's ``evaluate`` sees them (absent trailing ones dropped)."""
        arrays = [v.value if isinstance(v, ConstInput) else v for v in self.inputs]
        while arrays and arrays[-1] is None:
            arrays.pop()
        return [np.asarray(a) for a in arrays]


def has_evaluate(op: Op) -> bool:
    return type(op).evaluate is not Op.evaluate


@dataclass
class BuiltCase:
    graph: Graph
    node: Node
    feeds: dict[str, np.ndarray]
    outputs: list[str]


def build_case_graph(case: OpCase, dynamic: bool) -> BuiltCase:
    """Parameters/Consts feeding the op, one Result per output; inferred."""
    builder = GraphBuilder(f"case_{case.op.type}")
    ports: list[OutPort | None] = []
    feeds: dict[str, np.ndarray] = {}
    for i, value in enumerate(case.inputs):
        if value is None:
            ports.append(None)
        elif isinstance(value, ConstInput):
            ports.append(builder.const(value.value, name=f"const{i}"))
        else:
            name = f"in{i}"
            shape = tuple(None for _ in value.shape) if dynamic else value.shape
            ports.append(builder.parameter(name, shape, ElementType.from_numpy(value.dtype)))
            feeds[name] = value
    node = builder.node(case.op, *ports, name="op")
    infer_graph(builder.graph)
    outputs = []
    for port in node.out_ports():
        name = f"out{port.idx}"
        builder.result(port, name)
        outputs.append(name)
    infer_graph(builder.graph)
    return BuiltCase(builder.graph, node, feeds, outputs)


def check_case(case: OpCase, dynamic: bool, workdir: Path, host: PluginHost | None = None) -> None:
    """Emit, run in OpenVINO on CPU and compare with ``infer``/``evaluate``; raises AssertionError.

    ``host`` is the plugin host that emits (default: every installed plugin, loaded anew).
    """
    import openvino as ov
    from irconv.testing.runtime import emit_ir, run_ir

    built = build_case_graph(case, dynamic)
    xml = emit_ir(built.graph, workdir / "case.xml", host)
    model = ov.Core().read_model(str(xml))
    model_shapes = {name: port.get_partial_shape() for port in model.outputs for name in port.get_names()}
    results = run_ir(xml, built.feeds)
    expected = case.values() if has_evaluate(case.op) and case.check_values else None
    evaluated = case.op.evaluate(expected) if expected is not None else None
    assert expected is None or evaluated is not None, (
        f"{case.op.describe()}.evaluate returned None for this case: fix it or set check_values=False"
    )
    for idx, name in enumerate(built.outputs):
        actual = results[name]
        data = built.node.out_port(idx).data
        _check_shape(name, data.get_shape(), actual.shape, model_shapes.get(name), dynamic)
        model_type = model.output(name).get_element_type().get_type_name()
        assert data.get_type().value == model_type, (
            f"{name}: inferred element type {data.get_type().value}, runtime {model_type}"
        )
        if evaluated is not None:
            _check_values(name, np.asarray(evaluated[idx]), actual, case.rtol, case.atol)


def _check_shape(name: str, ours: MaybeShape, actual: Sequence[int], model_shape: Any, dynamic: bool) -> None:
    model_dynamic_rank = model_shape is None or model_shape.rank.is_dynamic
    if ours is None:
        assert dynamic or model_dynamic_rank, f"{name}: inferred a dynamic rank, runtime shape {tuple(actual)}"
        return
    assert len(ours) == len(actual), f"{name}: inferred shape {ours}, runtime shape {tuple(actual)}"
    for i, (d, a) in enumerate(zip(ours, actual, strict=False)):
        if d is None:
            model_dim_dynamic = model_dynamic_rank or model_shape[i].is_dynamic
            assert dynamic or model_dim_dynamic, f"{name}: inferred dim {i} dynamic in {ours}, runtime {tuple(actual)}"
        else:
            assert d == a, f"{name}: inferred shape {ours}, runtime shape {tuple(actual)}"


def _check_values(name: str, ours: np.ndarray, actual: np.ndarray, rtol: float, atol: float) -> None:
    assert ours.shape == actual.shape, f"{name}: evaluate gave shape {ours.shape}, runtime {actual.shape}"
    if np.issubdtype(actual.dtype, np.floating):
        np.testing.assert_allclose(
            ours.astype(np.float64),
            actual.astype(np.float64),
            rtol=rtol,
            atol=atol,
            err_msg=f"{name}: evaluate differs from the runtime",
        )
    else:
        np.testing.assert_array_equal(ours, actual, err_msg=f"{name}: evaluate differs from the runtime")


# ------------------------------------------------------------------ case discovery
@dataclass
class CaseFile:
    path: Path
    cases: list[OpCase]
    error: str = ""


def load_case_files(directory: Path) -> list[CaseFile]:
    """Import every ``cases_*.py`` in ``directory`` by path; an import error is kept, not raised."""
    files = []
    for path in sorted(directory.glob("cases_*.py")):
        try:
            module = _import_path(path)
            files.append(CaseFile(path, list(module.CASES)))
        except Exception as exc:  # reported as a failing test by the harness
            files.append(CaseFile(path, [], f"{type(exc).__name__}: {exc}"))
    return files


def _import_path(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"irconv_opset_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def case_params(files: Sequence[CaseFile]) -> list[tuple[str, OpCase, bool]]:
    """(test id, case, dynamic) for every case and its dynamic variant; ids made unique."""
    params: list[tuple[str, OpCase, bool]] = []
    seen: dict[str, int] = {}
    for file in files:
        for case in file.cases:
            base = case.base_id()
            count = seen.get(base, 0)
            seen[base] = count + 1
            if count:
                base = f"{base}-{count}"
            params.append((base, case, False))
            if case.dynamic and case.has_parameters():
                params.append((f"{base}-dynamic", case, True))
    return params
