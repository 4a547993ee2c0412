"""``irconv convert-many``: a folder or manifest of models through a process pool (or Dask /
Ray when installed), one corrupt model reported while the others convert, resumable runs,
JSON and CSV reports."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from irconv.cli import batch
from irconv.cli.main import main
from make_zoo import make_zoo

pytest.importorskip("irconv_onnx")


@pytest.fixture
def zoo(tmp_path: Path) -> Path:
    folder = tmp_path / "zoo"
    make_zoo(folder, count=4, blocks=2, corrupt=True)
    (folder / "nested").mkdir()
    (folder / "net00.onnx").rename(folder / "nested" / "net00.onnx")
    (folder / "notes.txt").write_text("not a model")
    return folder


def read_report(path: Path) -> dict[str, dict[str, object]]:
    return {row["name"]: row for row in json.loads(path.read_text())}


def test_pool_converts_all_and_reports_the_corrupt_one(zoo, tmp_path, capsys):
    out = tmp_path / "ir"
    code = main(["convert-many", str(zoo), "-o", str(out), "-j", "2"])
    printed = capsys.readouterr().out
    assert code == 1  # one model failed
    report = read_report(out / "report.json")
    assert set(report) == {"broken.onnx", "net01.onnx", "net02.onnx", "net03.onnx", "nested/net00.onnx"}
    broken = report.pop("broken.onnx")
    assert broken["status"] == "failed" and "not a valid ONNX model" in broken["error"]
    for name, row in report.items():
        assert row["status"] == "ok" and row["layers"] > 5 and row["peak_mb"] > 0 and row["seconds"] > 0, name
        assert Path(row["output"]).is_file() and Path(row["output"]).with_suffix(".bin").is_file()
    assert (out / "nested" / "net00.xml").is_file()
    assert len({row["worker"] for row in report.values()}) >= 1
    assert "5 model(s): 4 ok, 1 failed" in printed and "broken.onnx" in printed


def test_second_run_skips_up_to_date_models(zoo, tmp_path, capsys):
    out = tmp_path / "ir"
    main(["convert-many", str(zoo), "-o", str(out), "-j", "2", "-q"])
    first = read_report(out / "report.json")
    capsys.readouterr()
    main(["convert-many", str(zoo), "-o", str(out), "-j", "2", "-q"])
    second = read_report(out / "report.json")
    assert {n for n, r in second.items() if r["status"] == "skipped"} == {
        n for n, r in first.items() if r["status"] == "ok"
    }
    assert second["broken.onnx"]["status"] == "failed"  # failures are retried
    # a newer input is converted again; a truncated output too
    later = time.time() + 5
    os.utime(zoo / "net01.onnx", (later, later))
    (out / "net02.bin").write_bytes(b"")
    main(["convert-many", str(zoo), "-o", str(out), "-j", "2", "-q"])
    third = read_report(out / "report.json")
    assert third["net01.onnx"]["status"] == "ok" and third["net02.onnx"]["status"] == "ok"
    assert third["net03.onnx"]["status"] == "skipped"
    main(["convert-many", str(zoo), "-o", str(out), "-j", "1", "-q", "--force"])
    assert all(r["status"] != "skipped" for r in read_report(out / "report.json").values())


def test_csv_report_and_sequential_run(zoo, tmp_path):
    out = tmp_path / "ir"
    assert main(["convert-many", str(zoo), "-o", str(out), "-j", "1", "--report", str(tmp_path / "r.csv")]) == 1
    with open(tmp_path / "r.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {"name", "status", "seconds", "peak_mb", "layers", "error"} <= set(rows[0])
    assert sorted(r["status"] for r in rows) == ["failed", "ok", "ok", "ok", "ok"]


def test_manifest_lists_models_and_their_options(zoo, tmp_path):
    manifest = tmp_path / "zoo.yaml"
    manifest.write_text(
        "output_dir: built\n"
        "models:\n"
        "  - path: zoo/net01.onnx\n"
        "    output: one/first.xml\n"
        "    inputs: ['data[1,3,16,16]']\n"
        "  - zoo/net02.onnx\n"
    )
    assert main(["convert-many", str(manifest), "-j", "2", "-q"]) == 0
    assert (tmp_path / "built" / "one" / "first.xml").is_file()
    assert (tmp_path / "built" / "zoo" / "net02.xml").is_file()
    assert "16" in (tmp_path / "built" / "one" / "first.xml").read_text()


def test_bad_sources_are_one_line_errors(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["convert-many", str(empty)]) == 1
    assert "no model" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just a list\n")
    assert main(["convert-many", str(bad)]) == 1
    assert "'models' list" in capsys.readouterr().err


def test_dask_executor_on_a_local_cluster(zoo, tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "ir"
    assert main(["convert-many", str(zoo), "-o", str(out), "-j", "2", "--executor", "dask", "-q"]) == 1
    report = read_report(out / "report.json")
    assert sorted(r["status"] for r in report.values()) == ["failed", "ok", "ok", "ok", "ok"]


def test_dask_executor_on_an_existing_scheduler(zoo, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        out = tmp_path / "ir"
        assert main(["convert-many", str(zoo), "-o", str(out), "--executor", "dask", "--address", address, "-q"]) == 1
    report = read_report(out / "report.json")
    assert sorted(r["status"] for r in report.values()) == ["failed", "ok", "ok", "ok", "ok"]


def test_ray_executor_on_a_local_cluster(zoo, tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "ir"
    assert main(["convert-many", str(zoo), "-o", str(out), "-j", "2", "--executor", "ray", "-q"]) == 1
    report = read_report(out / "report.json")
    assert sorted(r["status"] for r in report.values()) == ["failed", "ok", "ok", "ok", "ok"]


def convert_many_with_a_patched_model(model: str, action: str, *argv: str) -> int:
    """Run ``irconv convert-many argv`` in a fresh interpreter in which converting ``model``
    runs ``action`` instead; returns the exit code. A fresh interpreter has loaded no native
    runtime, so its workers are forked and inherit the patch (this test session may have
    loaded TensorFlow, and then the pool starts its workers from a clean server instead)."""
    driver = f"""
import os, sys, threading, time
import irconv.pipeline.run as run
from irconv.cli import batch
from irconv.cli.main import main
original, parent = run.convert, os.getpid()
def patched(path, *args, **kwargs):
    if path.name == {model!r}:
        if os.getpid() == parent:
            raise RuntimeError("would have hit the driver process itself")
        {action}
    return original(path, *args, **kwargs)
run.convert = patched
sys.exit(main(["convert-many", *sys.argv[1:]]))
"""
    return subprocess.run([sys.executable, "-c", driver, *argv], timeout=300).returncode


def test_a_model_that_kills_its_worker_fails_alone(zoo, tmp_path):
    """A crash in native code ends the worker process: only that model is reported failed."""
    out = tmp_path / "ir"
    assert (
        convert_many_with_a_patched_model("net02.onnx", "os._exit(3)", str(zoo), "-o", str(out), "-j", "2", "-q") == 1
    )
    report = read_report(out / "report.json")
    assert report["net02.onnx"]["status"] == "failed" and "worker process died" in report["net02.onnx"]["error"]
    assert report["broken.onnx"]["status"] == "failed"
    assert {n for n, r in report.items() if r["status"] == "ok"} == {"net01.onnx", "net03.onnx", "nested/net00.onnx"}


def test_workers_start_from_a_clean_process_once_a_native_runtime_is_loaded(zoo, tmp_path, monkeypatch):
    """Forking a process that has run TensorFlow or OpenVINO gives workers that can crash at
    any moment; then the pool's workers come from a forkserver, and still convert."""
    assert batch.start_method(["fork", "spawn", "forkserver"], {"numpy": object()}) == "fork"
    assert batch.start_method(["fork", "spawn", "forkserver"], {"tensorflow": object()}) == "forkserver"
    assert batch.start_method(["spawn"], {}) is None
    if "onnxruntime" not in sys.modules:
        monkeypatch.setitem(sys.modules, "onnxruntime", types.ModuleType("onnxruntime"))
    out = tmp_path / "ir"
    assert main(["convert-many", str(zoo), "-o", str(out), "-j", "2", "-q"]) == 1
    report = read_report(out / "report.json")
    assert sorted(r["status"] for r in report.values()) == ["failed", "ok", "ok", "ok", "ok"]
    assert all(r["worker"] != os.getpid() for r in report.values())  # no warm-up model in this process


def test_unknown_option_is_refused_before_converting(zoo, tmp_path, capsys):
    assert main(["convert-many", str(zoo), "-o", str(tmp_path / "ir"), "--option", "no.such=1"]) == 2
    assert "no.such" in capsys.readouterr().err
    assert not (tmp_path / "ir").exists()


def test_a_model_that_takes_too_long_is_stopped(zoo, tmp_path):
    """net03 never finishes: --timeout stops it. net01's own limit (the manifest's, which wins
    over --timeout) is one no conversion comes near, so a slow machine cannot fail it."""
    out = tmp_path / "ir"
    manifest = zoo / "models.yaml"
    manifest.write_text("models:\n  - {path: net01.onnx, timeout: 600}\n  - net03.onnx\n")
    argv = (str(manifest), "-o", str(out), "-j", "2", "-q", "--timeout", "2")
    assert convert_many_with_a_patched_model("net03.onnx", "threading.Event().wait()", *argv) == 1
    report = read_report(out / "report.json")
    assert report["net03.onnx"]["status"] == "failed" and report["net03.onnx"]["error"] == "timed out after 2 s"
    assert report["net01.onnx"]["status"] == "ok"
