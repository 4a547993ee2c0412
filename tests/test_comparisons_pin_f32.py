"""Every IR compiled to compare its numbers goes through ``irconv.runtime.compile_for_comparison``.

The CPU plugin's default precision depends on the machine (bf16 on CPUs with AVX512-BF16 or
AMX, a u8 KV cache for stateful models), so a test that compiles with the defaults passes on
one machine and fails on the next. This module scans every Python file of the repository
(tests of every distribution, ``bench/``, the sources) for a way to reach OpenVINO's
``compile_model`` other than the helper: a call, an attribute or name taken to call later,
an import of it, or a string that names it (``getattr``, code run in a child process).
Docstrings may mention it. It holds the rule and planted violations as text, so it does not
scan itself.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
HELPER = "core/src/irconv/runtime.py"
NAME = "compile_model"

#: Files that compile at the device's default precision on purpose, each with its reason. Such
#: a file reads the precision the device reports, ``get_property("CPU",
#: "INFERENCE_PRECISION_HINT")``, and sets its tolerance from it (or prints it beside its
#: figures); the scan fails an entry that does not, or no longer compiles anything.
DEFAULT_PRECISION_ON_PURPOSE: Mapping[str, str] = {
    "bench/ir_quality.py": "latency of both converters' IRs as users run them; prints the CPU's default precision",
    "bench/llm.py": "generation latency as users run the IR (bf16, u8 KV cache where the CPU has them); prints it",
    "bench/tflite_latency.py": "int8 and float IR latency as users run them; prints the CPU's default precision",
}

_SKIPPED_DIRS = {"__pycache__", "build", "dist", "site-packages", "node_modules"}


def python_files(root: Path) -> Iterator[Path]:
    """Every ``.py`` under ``root`` but hidden folders (.git, .tox, .venv) and build output."""
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts[:-1]
        if any(p.startswith(".") or p in _SKIPPED_DIRS or p.endswith(".egg-info") for p in parts):
            continue
        yield path


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def compile_sites(source: str) -> list[int]:
    """Line numbers where ``source`` reaches ``compile_model``."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    lines = []
    for node in ast.walk(tree):
        if (
            (isinstance(node, ast.Attribute) and node.attr == NAME)
            or (isinstance(node, ast.Name) and node.id == NAME)
            or (isinstance(node, ast.ImportFrom) and any(a.name == NAME for a in node.names))
            or (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and NAME in node.value
                and id(node) not in docstrings
            )
        ):
            lines.append(node.lineno)
    return sorted(set(lines))


def reads_device_precision(source: str) -> bool:
    """``source`` calls ``<core>.get_property(<device>, "INFERENCE_PRECISION_HINT")``."""
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get_property"
            and len(node.args) == 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value == "INFERENCE_PRECISION_HINT"
        ):
            return True
    return False


def violations(root: Path, allowed: Mapping[str, str], skip: Path | None = None) -> list[str]:
    """One line per file (other than the helper) that compiles without the helper, and per
    allow-list entry that does not hold."""
    problems = []
    compiling: set[str] = set()
    for path in python_files(root):
        if path == skip:
            continue
        relative = path.relative_to(root).as_posix()
        sites = compile_sites(path.read_text(encoding="utf-8"))
        if not sites or relative == HELPER:
            continue
        compiling.add(relative)
        if relative not in allowed:
            where = ", ".join(map(str, sites))
            problems.append(f"{relative}:{where}: compiles an IR without irconv.runtime.compile_for_comparison")
    for relative, reason in allowed.items():
        path = root / relative
        if len(reason.split()) < 4:
            problems.append(f"{relative}: allow-listed without a reason")
        if relative not in compiling:
            problems.append(f"{relative}: allow-listed but compiles nothing (remove the entry)")
        elif not reads_device_precision(path.read_text(encoding="utf-8")):
            problems.append(f'{relative}: compiles at the default precision without get_property("CPU", '
                            '"INFERENCE_PRECISION_HINT")')
    return problems


def test_every_comparison_compiles_through_the_helper() -> None:
    scanned = {p.relative_to(REPO).as_posix() for p in python_files(REPO)}
    # the scan reaches every place that compiles IRs (a wrong root or filter would pass vacuously)
    for expected in ("plugins/torch/tests/torch_support.py", "tests/sweeps/torch_families.py", "core/src/irconv/cli/verify.py",
                     "plugins-builtin/opset/tests/test_opb_window_fuzz.py", "core/tests/test_cli_verify.py",
                     "plugins/example-swish/src/irconv_example_swish/runtime.py", HELPER):
        assert expected in scanned, expected
    assert compile_sites((REPO / HELPER).read_text(encoding="utf-8")), "the helper itself no longer compiles"
    assert violations(REPO, DEFAULT_PRECISION_ON_PURPOSE, skip=Path(__file__).resolve()) == []


PLANTED = {
    "call": "core.compile_model(model, 'CPU')",
    "module function": "import openvino as ov\nov.compile_model('m.xml')",
    "kept for later": "run = core.compile_model\nrun(model, 'CPU')",
    "imported": "from openvino import compile_model\ncompile_model('m.xml')",
    "by name": "getattr(core, 'compile_model')(model, 'CPU')",
    "child code": "subprocess.run([sys.executable, '-c', 'import openvino as ov; ov.Core().compile_model(\"m.xml\")'])",
    "with a comment": "core.compile_model(model, 'CPU')  # noqa  # compile_for_comparison",
}


@pytest.mark.parametrize("where", ["tests/onnx/test_planted.py", "plugins/onnx/tests/test_planted.py",
                                   "plugins-builtin/ir/tests/test_planted.py", "bench/planted.py"])
@pytest.mark.parametrize("form", sorted(PLANTED))
def test_a_planted_violation_is_found(tmp_path: Path, where: str, form: str) -> None:
    (tmp_path / HELPER).parent.mkdir(parents=True)
    (tmp_path / HELPER).write_text((REPO / HELPER).read_text(encoding="utf-8"))
    planted = tmp_path / where
    planted.parent.mkdir(parents=True)
    planted.write_text(f'"""Docstrings may say compile_model."""\n\n\ndef test_x(core, model):\n'
                       f"{textwrap.indent(PLANTED[form], '    ')}\n")
    found = violations(tmp_path, {})
    assert len(found) == 1 and found[0].startswith(f"{where}:") and "without irconv.runtime" in found[0]


def test_docstrings_and_the_helper_are_not_violations(tmp_path: Path) -> None:
    (tmp_path / HELPER).parent.mkdir(parents=True)
    (tmp_path / HELPER).write_text((REPO / HELPER).read_text(encoding="utf-8"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_fine.py").write_text(
        '"""Compiles with compile_model? No: through the helper."""\n'
        "from irconv.runtime import compile_for_comparison\n\n\n"
        "def test_x(xml):\n    \"\"\"Not core.compile_model(xml).\"\"\"\n    compile_for_comparison(xml)\n"
    )
    assert violations(tmp_path, {}) == []


def test_an_allow_list_entry_must_read_the_device_precision_and_still_compile(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    default = "import openvino as ov\n\n\ndef test_default(m):\n    ov.Core().compile_model(m, 'CPU')\n"
    reading = default + "    ov.Core().get_property('CPU', 'INFERENCE_PRECISION_HINT')\n"
    reason = "checks the default precision on purpose"
    (tmp_path / "tests" / "test_default.py").write_text(default)
    assert violations(tmp_path, {"tests/test_default.py": reason}) == [
        'tests/test_default.py: compiles at the default precision without get_property("CPU", '
        '"INFERENCE_PRECISION_HINT")'
    ]
    assert violations(tmp_path, {"tests/test_default.py": "because"})[0] == "tests/test_default.py: allow-listed without a reason"
    (tmp_path / "tests" / "test_default.py").write_text(reading)
    assert violations(tmp_path, {"tests/test_default.py": reason}) == []
    (tmp_path / "tests" / "test_default.py").write_text("def test_nothing():\n    pass\n")
    assert violations(tmp_path, {"tests/test_default.py": reason}) == [
        "tests/test_default.py: allow-listed but compiles nothing (remove the entry)"
    ]


def test_the_helper_pins_f32_compute_and_kv_cache_whatever_the_device_default() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset13 as ops
    from irconv.runtime import compile_for_comparison

    x = ops.parameter([2, 3], np.float32)
    model = ov.Model([ops.relu(x)], [x])
    lowered = ov.Core()  # a caller's core set to low precision does not win either
    lowered.set_property("CPU", {"INFERENCE_PRECISION_HINT": "bf16", "KV_CACHE_PRECISION": "u8"})
    for core in (ov.Core(), lowered):
        compiled = compile_for_comparison(model, core=core)
        for name in ("INFERENCE_PRECISION_HINT", "KEY_CACHE_PRECISION", "VALUE_CACHE_PRECISION"):
            assert compiled.get_property(name) == ov.Type.f32, name
    for key in ("INFERENCE_PRECISION_HINT", "KV_CACHE_PRECISION", "EXECUTION_MODE_HINT"):
        with pytest.raises(ValueError, match=key):
            compile_for_comparison(model, core=ov.Core(), config={key: "bf16"})
    latency = compile_for_comparison(model, core=ov.Core(), config={"PERFORMANCE_HINT": "LATENCY"})
    assert latency.get_property("INFERENCE_PRECISION_HINT") == ov.Type.f32


def test_bf16_rounding_is_visible_at_the_default_and_gone_through_the_helper() -> None:
    """On a CPU whose default is bf16, a MatMul at the default loses digits an f32 tolerance
    sees; through the helper it matches NumPy in f32. (On an f32-default CPU both match.)
    The one deliberate default-precision compile of this module, which the scan skips."""
    ov = pytest.importorskip("openvino")
    import openvino.opset13 as ops
    from irconv.runtime import compile_for_comparison

    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    x_in = rng.standard_normal((4, 64)).astype(np.float32)
    x = ops.parameter([4, 64], np.float32)
    model = ov.Model([ops.matmul(x, ops.constant(w), False, False)], [x])
    expected = x_in @ w
    np.testing.assert_allclose(compile_for_comparison(model, core=ov.Core())(x_in)[0], expected, rtol=1e-5, atol=1e-4)
    core = ov.Core()
    default = core.get_property("CPU", "INFERENCE_PRECISION_HINT")
    error = np.abs(core.compile_model(model, "CPU")(x_in)[0] - expected).max()
    assert (error > 1e-3) == (default != ov.Type.f32)
