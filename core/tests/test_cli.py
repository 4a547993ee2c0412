import json
import os
import subprocess
import sys

import pytest
from irconv.cli.main import main
from toy_cli import use_toy_host


@pytest.fixture
def toy_cli(monkeypatch):
    """The CLI's plugin host: the toy plugin."""
    use_toy_host(monkeypatch)


def test_convert_prints_header_and_summary(tmp_path, toy_cli, capsys):
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop r MyRelu x\noutput y r\n")
    code = main(["convert", str(model), "-o", str(tmp_path / "out.xml")])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].startswith("irconv ") and "plugins: toy-9.9" in out[0]
    assert out[-1].startswith(f"converted {model} (toy) -> {tmp_path / 'out.xml'}, {tmp_path / 'out.bin'}: 3 layers")


def test_unsupported_ops_exit_5_with_one_message_and_no_output(tmp_path, toy_cli, capsys):
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop a Foo x\nop b Bar a\noutput y b\n")
    code = main(["convert", str(model), "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 5
    assert "Foo" in err and "Bar" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.toy"]


def test_bad_input_spec_is_one_line(tmp_path, toy_cli, capsys):
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop r MyRelu x\noutput y r\n")
    assert main(["convert", str(model), "--input", "x[1,a]"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "dimension 'a'" in err[0]


def test_debug_shows_the_traceback(tmp_path, toy_cli, capsys):
    assert main(["convert", str(tmp_path / "missing.toy"), "--debug"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_unwritable_output_is_a_clear_error(tmp_path, toy_cli, capsys):
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop r MyRelu x\noutput y r\n")
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["convert", str(model), "-o", str(blocker / "sub" / "out.xml")]) == 1
    assert "cannot create output directory" in capsys.readouterr().err


def test_plugins_json_lists_status_and_counts(toy_cli, capsys):
    assert main(["plugins", "--json"]) == 0
    (toy,) = json.loads(capsys.readouterr().out)
    assert toy["name"] == "toy" and toy["status"] == "active"
    assert toy["counts"] == {"ops": 5, "loaders": 1, "extractors": 4, "emitters": 1}
    assert toy["hooks"] == ["declare_ops", "emit", "extract_op", "load_model"]


def test_ops_table_lists_extractors(toy_cli, capsys):
    assert main(["ops", "--framework", "toy"]) == 0
    out = capsys.readouterr().out
    assert "MyRelu" in out and "ReLU" in out and "irconv" not in out.split("\n")[0]


def test_transforms_json_is_empty_without_transform_plugins(toy_cli, capsys):
    assert main(["transforms", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_convert_calls_only_the_hooks_it_needs_and_notes_a_late_failure(tmp_path, monkeypatch, capsys):
    from irconv.plugins import hookimpl

    called = []

    class Unused:
        @hookimpl
        def verify_model(self):
            called.append("verify_model")
            return []

        @hookimpl
        def render_graph(self):
            called.append("render_graph")
            return []

    class FailsLate:
        @hookimpl
        def extract_op(self, framework):
            raise RuntimeError("its extractor module is broken")

    use_toy_host(monkeypatch, (Unused(), "unused"), (FailsLate(), "late"))
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop r MyRelu x\noutput y r\n")
    assert main(["convert", str(model), "-o", str(tmp_path / "out.xml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "late-1" in out[0] and "failed" not in out[0]  # the header comes before extraction
    assert "note: plugin late (irconv-late 1) failed and was left out: hook extract_op failed: RuntimeError" in out[1]
    assert called == []


def test_the_command_line_runs_blas_single_threaded_unless_told_otherwise():
    probe = "import irconv.cli.main, os, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    default = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert default.stdout.strip() == "1"
    chosen = subprocess.run(
        [sys.executable, "-c", probe],
        env={**env, "OPENBLAS_NUM_THREADS": "2"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert chosen.stdout.strip() == "2"


def test_the_command_exits_fast_but_lets_a_profiler_report(tmp_path):
    """The console entry skips the interpreter's teardown; output is still flushed, exit
    handlers still run, and under a profiler the ordinary exit lets it write its report."""
    handler = "import atexit, sys; atexit.register(lambda: print('handler ran', file=sys.stderr))"
    script = f"{handler}; sys.argv = ['irconv', '--version']; from irconv.cli.main import entry; entry()"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith("irconv ")
    assert "handler ran" in done.stderr

    report = tmp_path / "profile.out"
    profiled = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(report), "-m", "irconv", "--version"],
        capture_output=True, text=True,
    )
    assert profiled.returncode == 0
    assert report.stat().st_size > 0
