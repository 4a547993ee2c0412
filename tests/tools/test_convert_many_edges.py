"""``irconv convert-many``: Ctrl-C stops the workers and reports what finished; errors are
reported whole; files no loader recognises are named; a failed model keeps its framework."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from irconv.cli.main import main
from make_zoo import make_zoo

onnx = pytest.importorskip("onnx")
pytest.importorskip("irconv_onnx")
from onnx import TensorProto, helper  # noqa: E402


def _unsupported(path: Path) -> None:
    nodes = [helper.make_node("Foo", ["x"], ["a"], domain="com.nobody"),
             helper.make_node("Bar", ["a"], ["y"], domain="com.nobody")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("com.nobody", 1)]), path)


def test_errors_are_whole_and_unrecognised_files_are_named(tmp_path, capsys):
    zoo = tmp_path / "zoo"
    make_zoo(zoo, count=1, blocks=1, corrupt=False)
    _unsupported(zoo / "custom.onnx")
    (zoo / "notes.txt").write_text("not a model")
    out = tmp_path / "out"
    assert main(["convert-many", str(zoo), "-o", str(out)]) == 1
    printed = capsys.readouterr().out
    rows = {row["name"]: row for row in json.loads((out / "report.json").read_text())}
    failed = rows["custom.onnx"]
    assert failed["status"] == "failed" and failed["framework"] == "onnx"
    assert "com.nobody::Foo" in failed["error"] and "com.nobody::Bar" in failed["error"]
    assert "\n" in failed["error"]  # the whole report of unsupported ops, not its first line
    assert "com.nobody::Bar" in printed
    assert "not converted: 1 file(s) no installed loader recognises (notes.txt)" in printed


def test_ctrl_c_stops_the_workers_and_reports_what_finished(tmp_path):
    zoo = tmp_path / "zoo"
    make_zoo(zoo, count=16, blocks=6, corrupt=False)
    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "irconv", "convert-many", str(zoo), "-o", str(out), "-j", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith("[1/") or not line:
            break
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "report:" in stderr
    rows = json.loads((out / "report.json").read_text())
    finished = {row["name"] for row in rows if row["status"] == "ok"}
    assert len(rows) < 16
    time.sleep(2)  # no worker goes on writing after the command returned
    written = {str(p.relative_to(out).with_suffix(".onnx")) for p in out.rglob("*.xml")}
    assert written == finished
    assert not list(out.rglob("*.tmp"))
