"""Programs irconv cannot convert get one line naming what is wrong, a non-zero exit and no
output: a truncated program, parameters of another program, missing parameters, and
operators without an extractor (all of them at once)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from irconv.cli.main import main
from paddle_compare import FORMS, save_models


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folders = {}
    for form in FORMS:
        folder = tmp_path_factory.mktemp(f"bad-{form}")
        save_models(folder, form, "paddle_cases:CASES", ["conv", "linear"])
        save_models(folder, form, "paddle_cases:UNSUPPORTED", ["unsupported"])
        folders[form] = folder
    return folders


def _convert(program: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["convert", str(program), "-o", str(out)])
    return code, capsys.readouterr().err.strip().splitlines()


def _copy(saved: Path, name: str, form: str, target: Path) -> Path:
    program = saved / f"{name}{FORMS[form]}"
    shutil.copy(program, target / program.name)
    shutil.copy(saved / f"{name}.pdiparams", target / f"{name}.pdiparams")
    return target / program.name


@pytest.mark.parametrize("form", sorted(FORMS))
def test_truncated_program(form: str, saved: dict[str, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    program = _copy(saved[form], "conv", form, tmp_path)
    program.write_bytes(program.read_bytes()[: program.stat().st_size // 2])
    code, lines = _convert(program, tmp_path / "out" / "conv.xml", capsys)
    assert code == 1 and len(lines) == 1, lines
    assert "truncated" in lines[0] and program.name in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("form", sorted(FORMS))
def test_parameters_of_another_program(form: str, saved: dict[str, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    program = _copy(saved[form], "conv", form, tmp_path)
    shutil.copy(saved[form] / "linear.pdiparams", tmp_path / "conv.pdiparams")
    code, lines = _convert(program, tmp_path / "out" / "conv.xml", capsys)
    assert code == 1 and len(lines) == 1, lines
    assert "conv.pdiparams" in lines[0] and "another program" in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("form", sorted(FORMS))
def test_missing_parameters(form: str, saved: dict[str, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    program = _copy(saved[form], "conv", form, tmp_path)
    (tmp_path / "conv.pdiparams").unlink()
    code, lines = _convert(program, tmp_path / "out" / "conv.xml", capsys)
    assert code == 1 and len(lines) == 1, lines
    assert "--weights" in lines[0]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_unsupported_operators_listed_at_once(form: str, saved: dict[str, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    if (saved[form] / "unsupported.error").exists():
        pytest.skip("Paddle writes no program of this form for these ops")
    program = saved[form] / f"unsupported{FORMS[form]}"
    code, lines = _convert(program, tmp_path / "out" / "unsupported.xml", capsys)
    text = "\n".join(lines)
    assert code != 0
    assert "kron" in text and "det" in text, text
    assert not (tmp_path / "out").exists()
