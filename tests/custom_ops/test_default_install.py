"""The example plugin is a template and a test fixture: not part of the default install."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _editable_paths(name: str) -> list[str]:
    lines = (ROOT / name).read_text().splitlines()
    return [line.split("#")[0].strip()[3:].strip() for line in lines if line.strip().startswith("-e ")]


def test_default_requirements_leave_it_out_and_test_requirements_bring_it():
    assert not any("example-swish" in path for path in _editable_paths("requirements.txt"))
    assert any(path.startswith("./plugins/example-swish") for path in _editable_paths("requirements-test.txt"))
