"""Every module the test suite needs is installed, or CI fails before a single test runs.

Tests ask for their reference runtimes with ``pytest.importorskip`` (so a developer without
TensorFlow can still run the rest), and irconv imports a framework or an optional extra only
when a feature needs it (``import yaml`` for a convert-many manifest); in CI either turns a
module missing from the requirements files into skipped or failing tests. This check reads
the test files and irconv's sources (nothing is imported), collects every module they import
or ask for with ``importorskip`` (a test file's ``try: import x / except ImportError`` is
optional; a source file's guarded import is a feature the tests exercise), and fails naming
each module the environment cannot import, with the files that need it.

Modules with an environment of their own, and optional extras whose tests are meant to skip,
are listed in ``NOT_IN_THE_MAIN_ENVIRONMENT`` with the reason.

    python .ci/required_modules.py          # a report; exit 1 when something is missing
    PYTEST_ADDOPTS="-p required_modules" PYTHONPATH=.ci python -m pytest ...   # as CI runs it
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Modules the main test environment does not install, each with the reason.
NOT_IN_THE_MAIN_ENVIRONMENT = {
    "mxnet": "MXNet 1.9.1 needs numpy 1.23: its tests run in `tox -e mxnet`",
    "rich": "optional progress display (irconv-core[progress]); the tests check the built-in plain one",
    "timm": "only the timm sweep (tests/sweeps/timm_zoo.py, not collected) imports it, from its own --site folder",
    "torchvision": "only the torchvision and timm sweeps (tests/sweeps/, not collected) import it, from their --site folder",
}


def test_folders() -> list[Path]:
    """The folders the test suite is collected from (pyproject's testpaths)."""
    return [REPO / "tests", REPO / "core" / "tests", *sorted(REPO.glob("plugins*/*/tests"))]


def files_of_tests() -> Iterator[Path]:
    for root in test_folders():
        yield from sorted(root.rglob("*.py"))


def source_files() -> Iterator[Path]:
    for src in [REPO / "core" / "src", *sorted(REPO.glob("plugins*/*/src"))]:
        yield from sorted(src.rglob("*.py"))


def local_modules() -> set[str]:
    """Top-level names that the repository itself provides (sources and test helpers)."""
    names = {path.stem for root in test_folders() for path in root.rglob("*.py")}
    names |= {path.parent.name for root in test_folders() for path in root.rglob("__init__.py")}
    for src in REPO.glob("*/*/src"):
        names |= {child.name for child in src.iterdir() if child.is_dir()}
    names |= {path.name for path in REPO.glob("core/src/*") if path.is_dir()}
    names |= {path.name for path in REPO.iterdir() if path.is_dir()}  # `from tests.fusing import ...`
    return names


def is_own(module: str) -> bool:
    """The project's namespace: a test may import an ``irconv_*`` plugin that must not exist."""
    return module == "irconv" or module.startswith("irconv_")


def _guarded_by_import_error(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """An import inside ``try: ... except ImportError`` is optional by construction."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                names = [handler.type] if not isinstance(handler.type, ast.Tuple) else handler.type.elts
                if any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names):
                    return True
    return False


def modules_used(path: Path, *, guarded_are_optional: bool = True) -> set[str]:
    """Top-level modules a file imports, or asks for with ``pytest.importorskip``."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError:
        return set()  # not this check's to report: importing the file fails with the details
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    found: set[str] = set()
    for node in ast.walk(tree):
        optional = guarded_are_optional and _guarded_by_import_error(node, parents)
        if isinstance(node, ast.Import) and not optional:
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and not optional:
            found.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "importorskip"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value.split(".")[0])
    return found


def missing_modules() -> dict[str, list[Path]]:
    """Each module the tests need that cannot be imported here, with the files needing it."""
    skip = local_modules() | set(sys.stdlib_module_names) | set(NOT_IN_THE_MAIN_ENVIRONMENT) | {"__future__"}
    needed: dict[str, list[Path]] = {}
    used = [(path, modules_used(path)) for path in files_of_tests()]
    used += [(path, modules_used(path, guarded_are_optional=False)) for path in source_files()]
    for path, modules in used:
        for module in modules - skip:
            if not is_own(module):
                needed.setdefault(module, []).append(path)
    return {m: files for m, files in sorted(needed.items()) if importlib.util.find_spec(m) is None}


def report(missing: dict[str, list[Path]]) -> str:
    lines = [f"{len(missing)} module(s) the tests need are not installed by requirements-test.txt:"]
    for module, files in missing.items():
        shown = ", ".join(str(f.relative_to(REPO)) for f in files[:3]) + (" ..." if len(files) > 3 else "")
        lines.append(f"  {module}: needed by {shown}")
    lines.append("Add each to requirements-test.txt (or to NOT_IN_THE_MAIN_ENVIRONMENT in .ci/required_modules.py")
    lines.append("with the reason its tests are meant to skip).")
    return "\n".join(lines)


def pytest_sessionstart(session: object) -> None:
    """As a pytest plugin (``-p required_modules``): stop before collecting anything."""
    import pytest

    missing = missing_modules()
    if missing:
        pytest.exit(report(missing), returncode=3)


def main() -> int:
    missing = missing_modules()
    if missing:
        print(report(missing), file=sys.stderr)
        return 1
    files = sum(1 for _ in files_of_tests()) + sum(1 for _ in source_files())
    print(f"every module the tests and irconv's features need is installed ({files} files read)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
