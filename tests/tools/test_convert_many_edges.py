"""``irconv convert-many``: Ctrl-C stops the workers and reports what finished; errors are
reported whole; files no loader recognises are named; a failed model keeps its framework."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import blocking_loader
import pytest
from blocking_loader import SUFFIX, block, plugin_site
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


def _running(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state != "Z"


def _wait_for(condition: Callable[[], bool], process: subprocess.Popen[str], what: str) -> None:
    """Poll until ``condition`` holds; fail if the command ends first. The deadline only
    bounds a hang: the state comes as soon as the machine gets there."""
    deadline = time.monotonic() + 600
    while not condition():
        assert process.poll() is None, f"convert-many ended before {what}: {process.communicate()}"
        assert time.monotonic() < deadline, f"no {what} after 600 s"
        time.sleep(0.05)


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="Ctrl-C of a process group is POSIX")
def _ctrl_c_as_in_a_terminal() -> None:
    """The child takes SIGINT as a terminal's Ctrl-C, even when this test runs in a shell's
    background job (which starts with SIGINT ignored, and children inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_the_workers_and_reports_what_finished(tmp_path):
    """Interrupted at a known state, not after a guessed time: four models converted and
    reported, and each of the two workers converting a model that never finishes (a fixture
    plugin's ``.block`` files, which say so in a marker file)."""
    zoo = tmp_path / "zoo"
    finished_first = {p.name for p in make_zoo(zoo, count=4, blocks=2, corrupt=False)}
    markers = [tmp_path / f"stuck{i}.started" for i in range(2)]
    for i, marker in enumerate(markers):  # named to sort after the zoo's models: converted last
        block(zoo / f"zz_stuck{i}{SUFFIX}", marker)
    site = plugin_site(tmp_path / "site")
    paths = [str(site), str(Path(blocking_loader.__file__).parent), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "IRCONV_CACHE_DIR": str(tmp_path / "cache")}
    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "irconv", "convert-many", str(zoo), "-o", str(out), "-j", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )
    try:
        assert process.stdout is not None
        reported: list[str] = []
        while not any(line.startswith(f"[{len(finished_first)}/") for line in reported):
            line = process.stdout.readline()
            assert line, f"convert-many ended before reporting the zoo's models: {process.communicate()}"
            reported.append(line)
        _wait_for(lambda: all(m.exists() for m in markers), process, "worker converting each stuck model")
        workers = {int(m.read_text()) for m in markers}
        assert len(workers) == 2 and process.pid not in workers
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
        stdout, stderr = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "report:" in stderr
    rows = json.loads((out / "report.json").read_text())
    finished = {row["name"] for row in rows if row["status"] == "ok"}
    assert finished == {row["name"] for row in rows} == finished_first
    assert not any(_running(pid) for pid in workers)  # no worker goes on after the command returned
    written = {str(p.relative_to(out).with_suffix(".onnx")) for p in out.rglob("*.xml")}
    assert written == finished
    assert not list(out.rglob("*.tmp"))
