"""``.pt2`` archives: converted from the file (Python API and command line), checked with
``--verify``, and read without running code from the file."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from irconv.errors import ModelFileError
from torch import nn
from torch_support import convert_and_compile, run_both


class SmallNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.relu(self.bn(self.conv(x))).mean((2, 3)))


@pytest.fixture
def archive(tmp_path: Path) -> tuple[Path, nn.Module]:
    model = SmallNet().eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    program = torch.export.export(model, (torch.randn(2, 3, 8, 8),), dynamic_shapes=({0: batch},))
    path = tmp_path / "small.pt2"
    torch.export.save(program, path)
    return path, model


def test_a_pt2_file_converts_and_matches_torch(archive: tuple[Path, nn.Module], tmp_path: Path) -> None:
    path, model = archive
    compiled = convert_and_compile(path, tmp_path)
    (parameter,) = compiled.inputs
    assert str(parameter.get_partial_shape()) == "[1..8,3,8,8]"
    for batch in (1, 5):
        expected, actual = run_both(model, compiled, (torch.randn(batch, 3, 8, 8),))
        np.testing.assert_allclose(actual[0], expected[0], rtol=1e-4, atol=1e-5)


def test_an_exported_program_converts_in_memory(archive: tuple[Path, nn.Module], tmp_path: Path) -> None:
    path, model = archive
    compiled = convert_and_compile(torch.export.load(path), tmp_path)
    expected, actual = run_both(model, compiled, (torch.randn(3, 3, 8, 8),))
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-4, atol=1e-5)


def test_module_paths_become_friendly_names(archive: tuple[Path, nn.Module]) -> None:
    import irconv

    graph = irconv.convert_model(archive[0])
    names = {node.name for node in graph.nodes()}
    assert {"fc", "fc.weight", "fc.bias"} <= names  # a module's op, and its parameters by their state_dict names
    # BatchNorm folds into the convolution; what is left of them keeps their module paths
    assert any(name.startswith("conv/") for name in names) and any(name.startswith("bn/") for name in names)


def test_the_command_line_converts_and_verifies(archive: tuple[Path, nn.Module], tmp_path: Path) -> None:
    out = tmp_path / "out" / "small.xml"
    done = subprocess.run([sys.executable, "-m", "irconv", "convert", str(archive[0]), "-o", str(out), "--verify"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr + done.stdout
    assert out.exists() and out.with_suffix(".bin").exists()
    assert "verif" in (done.stdout + done.stderr).lower()


def _rewritten(source: Path, target: Path, replace: dict[str, bytes]) -> Path:
    """A copy of the archive ``source`` with some records' bytes replaced."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as new:
        for item in old.infolist():
            suffix = next((key for key in replace if item.filename.endswith(key)), None)
            new.writestr(item, replace[suffix] if suffix else old.read(item.filename))
    return target


class _Payload:
    """A pickle that, when unpickled, creates a file: what a hostile archive would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_hostile_example_inputs_are_never_unpickled(archive: tuple[Path, nn.Module], tmp_path: Path) -> None:
    import irconv

    marker = tmp_path / "pwned"
    hostile = _rewritten(archive[0], tmp_path / "hostile.pt2",
                         {"data/sample_inputs/model.pt": pickle.dumps(_Payload(marker))})
    graph = irconv.convert_model(hostile)  # the program itself is intact: it converts
    assert graph.parameters() and not marker.exists()
    # the payload is live: torch.export.load, which unpickles the example inputs, runs it
    probe = f"import torch; torch.export.load({str(hostile)!r})"
    subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=300)
    assert marker.exists()


def test_a_hostile_pickled_weight_is_refused(archive: tuple[Path, nn.Module], tmp_path: Path) -> None:
    import irconv

    marker = tmp_path / "pwned"
    with zipfile.ZipFile(archive[0]) as old:
        config_name = next(n for n in old.namelist() if n.endswith("model_weights_config.json"))
        config = json.loads(old.read(config_name))
    first = next(iter(config["config"].values()))
    first["use_pickle"] = True
    hostile = _rewritten(archive[0], tmp_path / "hostile.pt2", {
        "model_weights_config.json": json.dumps(config).encode(),
        f"data/weights/{first['path_name']}": pickle.dumps(_Payload(marker)),
    })
    with pytest.raises(ModelFileError, match="not a plain tensor"):
        irconv.convert_model(hostile)
    assert not marker.exists()


@pytest.mark.parametrize("damage", ["truncated", "not_a_zip", "no_program"])
def test_a_damaged_archive_is_one_clear_error_and_writes_nothing(archive: tuple[Path, nn.Module], tmp_path: Path,
                                                                 damage: str) -> None:
    source = archive[0].read_bytes()
    bad = tmp_path / "bad.pt2"
    if damage == "truncated":
        bad.write_bytes(source[: len(source) // 2])
    elif damage == "not_a_zip":
        bad.write_bytes(b"\x80\x04 not an archive at all")
    else:
        with zipfile.ZipFile(archive[0]) as old, zipfile.ZipFile(bad, "w") as new:
            for item in old.infolist():
                if "/models/" not in item.filename:
                    new.writestr(item, old.read(item.filename))
    out = tmp_path / "out.xml"
    done = subprocess.run([sys.executable, "-m", "irconv", "convert", str(bad), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert str(bad) in done.stderr or "bad.pt2" in done.stderr
    assert not out.exists() and not out.with_suffix(".bin").exists()


def _with_program_json(source: Path, target: Path, edit: Any) -> Path:
    """A copy of the archive ``source`` whose program JSON is passed through ``edit``."""
    with zipfile.ZipFile(source) as old:
        name = next(n for n in old.namelist() if "/models/" in n and n.endswith(".json"))
        document = json.loads(old.read(name))
    edit(document)
    return _rewritten(source, target, {name.split("/", 1)[1]: json.dumps(document).encode()})


def _newer(document: dict[str, Any]) -> None:
    document["schema_version"] = {"major": 99, "minor": 2}
    document["torch_version"] = "9.1.0+cpu"


def _older(document: dict[str, Any]) -> None:
    document["schema_version"] = {"major": 5, "minor": 3}
    del document["torch_version"]  # not recorded before torch 2.5


@pytest.mark.parametrize(("edit", "writer"), [(_newer, "torch 9.1.0"), (_older, "torch 2.4 or older")],
                         ids=["newer", "older"])
def test_a_pt2_of_another_schema_names_both_torch_releases(archive: tuple[Path, nn.Module], tmp_path: Path,
                                                           edit: Any, writer: str) -> None:
    other = _with_program_json(archive[0], tmp_path / "other.pt2", edit)
    out = tmp_path / "out.xml"
    done = subprocess.run([sys.executable, "-m", "irconv", "convert", str(other), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.strip()]
    installed = torch.__version__.split("+")[0]
    assert f"written by {writer}" in line and f"installed torch {installed}" in line, line
    assert not out.exists()
