"""Exit codes: one list in the code (``irconv.errors.EXIT_CODES``), the same table in
docs/cli.md, and one code for every option value no model makes valid."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from irconv.cli.main import main
from irconv.errors import EXIT_CODES, ExitCode, UnsupportedOpsError, UsageError

onnx = pytest.importorskip("onnx")
pytest.importorskip("irconv_onnx")
from onnx import TensorProto, helper  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def model(tmp_path: Path) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])],
    )
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _exit_code_table(text: str) -> dict[int, str]:
    section = text[text.index("### Exit codes") :]
    rows = re.findall(r"^\| (\d+) \| (.*) \|$", section.split("\n\n", 2)[1], re.MULTILINE)
    return {int(code): meaning for code, meaning in rows}


def test_the_docs_exit_code_table_is_the_code_list() -> None:
    table = _exit_code_table((DOCS / "cli.md").read_text())
    assert table == {int(code): meaning for code, meaning in EXIT_CODES.items()}
    assert set(EXIT_CODES) == set(ExitCode)


def test_the_introduction_names_the_codes_the_table_gives() -> None:
    intro = (DOCS / "cli.md").read_text().split("\n## ", 1)[0]
    said = {int(code): what for code, what in re.findall(r"\b(\d+) (?:for|when) ([^,.]+)", intro)}
    assert said, intro
    assert set(said) <= {int(code) for code in ExitCode}
    by_words = {"unsupported operations": UnsupportedOpsError.exit_code, "command line": UsageError.exit_code}
    for code, what in said.items():
        for words, expected in by_words.items():
            if words in what:
                assert code == expected, f"docs/cli.md's introduction: {code} for {what}"


def test_each_error_class_exits_with_its_listed_code() -> None:
    from irconv.cli.verify import VerificationFailed
    from irconv.errors import PluginFault, UserError

    assert UserError.exit_code == ExitCode.USER_ERROR and UsageError.exit_code == ExitCode.USAGE
    assert UnsupportedOpsError.exit_code == ExitCode.UNSUPPORTED_OPS and PluginFault.exit_code == ExitCode.PLUGIN_FAULT
    assert VerificationFailed.exit_code == ExitCode.VERIFY_MISMATCH


def test_every_exit_code_the_docs_name_exists() -> None:
    known = {int(code) for code in ExitCode}
    for page in DOCS.glob("*.md"):
        for code in re.findall(r"\bexit(?: code|s)? (\d+)\b", page.read_text()):
            assert int(code) in known, f"{page.name}: exit code {code}"


def _run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own errors
        return int(exc.code or 0)


BAD_VALUES = {
    "argparse type": ["--verify-tolerance", "abc"],
    "negative tolerance": ["--verify-tolerance", "-1"],
    "plugin choices": ["--layout-inputs", "bogus"],
    "plugin int": ["--batch", "abc"],
    "plugin validate": ["--batch", "-3"],
    "zero scale": ["--scale-values", "x[1,0,2]"],
    "input dim": ["--input", "x[1,3,a]"],
    "input type": ["--input", "x{f33}"],
    "input value": ["--input", "x[1]->[a]"],
    "option syntax": ["--option", "novalue"],
    "option name": ["--option", "bogus=1"],
    "framework": ["--framework", "bogus"],
    "format": ["--format", "bogus"],
    "transform id": ["--disable-transform", "fuse.pads"],
    "regex": ["--finegrain-fusing", "("],
    "threads": ["--threads", "0"],
}


@pytest.mark.parametrize("case", sorted(BAD_VALUES))
def test_a_bad_option_value_of_convert_is_a_usage_error(case: str, model: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "o.xml"
    assert _run(["convert", str(model), "-o", str(out), *BAD_VALUES[case]]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not out.exists()


def test_a_number_option_says_what_it_expected_in_the_users_words(model: Path, tmp_path: Path, capsys) -> None:
    assert _run(["convert", str(model), "-o", str(tmp_path / "o.xml"), "--batch", "1.5"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.endswith("option --batch (prep.batch): bad value '1.5': not a whole number\n"), err


def test_weight_format_int3_is_a_usage_error(model: Path, tmp_path: Path, capsys) -> None:
    pytest.importorskip("irconv_llm")
    assert _run(["convert", str(model), "-o", str(tmp_path / "o.xml"), "--weight-format", "int3"]) == ExitCode.USAGE
    assert "'int3' is not one of" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["convert-many", "{dir}", "-j", "0"],
        ["convert-many", "{dir}", "-j", "abc"],
        ["convert-many", "{dir}/empty", "--timeout", "0"],
        ["transforms", "--phase", "midle"],
        ["ops", "--framework", "bogus"],
        ["show", "{model}", "--format", "bogus"],
        ["mo", "--input_model", "{model}", "--data_type", "FP64"],
        ["mo", "--input_model", "{model}", "--compress_to_fp16=maybe"],
        ["mo", "--input_model", "{model}", "--mean_file", "mean.binaryproto"],
        ["mo", "--output_dir", "{dir}"],
        ["mo", "--input_model", "{model}", "--input", "x,y", "--input_shape", "[1,3,4,4]"],
    ],
)
def test_a_bad_option_value_of_any_command_is_a_usage_error(argv: list[str], model: Path, capsys) -> None:
    (model.parent / "empty").mkdir()  # a folder without models: the value is refused first
    filled = [a.format(dir=model.parent, model=model) for a in argv]
    assert _run(filled) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_an_option_that_does_not_fit_the_model_is_a_user_error(model: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "o.xml"
    assert _run(["convert", str(model), "-o", str(out), "--input", "nosuch[1]"]) == ExitCode.USER_ERROR
    assert "no such model input" in capsys.readouterr().err


def test_a_mistyped_command_gets_the_nearest_one() -> None:
    done = subprocess.run([sys.executable, "-m", "irconv", "conver", "m.onnx"], capture_output=True, text=True)
    assert done.returncode == ExitCode.USAGE
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "did you mean 'convert'?" in done.stderr


def test_a_mistyped_choice_gets_the_nearest_one(capsys) -> None:
    assert _run(["transforms", "--phase", "midle"]) == ExitCode.USAGE
    assert "did you mean 'middle'?" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["mo", "--version"], ["--version"]])
def test_mo_version_prints_the_versions_as_irconv_version_does(argv: list[str], capsys) -> None:
    from irconv import __version__

    assert _run(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"irconv {__version__}\n") and "irconv-onnx" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "{model}", "-o", "{blocked}/graph.html"],
        ["docs", "--out", "{blocked}/docs"],
        ["new-plugin", "thing", "-o", "{blocked}/thing"],
    ],
)
def test_an_output_path_that_cannot_be_written_is_one_line_not_an_internal_error(argv, model, tmp_path, capsys):
    blocked = tmp_path / "a-file"  # a file where the path needs a folder
    blocked.write_text("")
    assert _run([a.format(model=model, blocked=blocked) for a in argv]) == ExitCode.USER_ERROR
    err = capsys.readouterr().err
    assert err.startswith(f"irconv: error: {blocked}") and "internal error" not in err, err
    assert len(err.strip().splitlines()) == 1 and "check the path" in err


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("x[1,3,4,4]{i8}->[300]", "300 is not a value of input 'x', of type int8 (whole numbers -128..127)"),
        ("x[1,3,4,4]{u8}->[1.5]", "1.5 is not a value of input 'x', of type uint8 (whole numbers 0..255)"),
        ("x[1,3,4,4]{f16}->[1e6]", "1e+06 is out of the range of input 'x', of type float16 (up to +-65504)"),
    ],
)
def test_a_value_the_input_type_cannot_hold_is_named_with_the_range(spec, says, model, tmp_path, capsys):
    assert _run(["convert", str(model), "-o", str(tmp_path / "o.xml"), "-q", "--input", spec]) == ExitCode.USER_ERROR
    assert capsys.readouterr().err == f"irconv: error: --input x: {says}\n"


@pytest.mark.parametrize(
    "command", [["plugins"], ["plugins", "--json"], ["ops"], ["transforms"], ["convert", "{model}", "-o", "{out}"]]
)
def test_a_disabled_plugin_name_no_plugin_has_is_a_usage_error(command, model, tmp_path, capsys):
    out = tmp_path / "o.xml"
    argv = [a.format(model=model, out=out) for a in command] + ["--disable-plugin", "onnxx"]
    assert _run(argv) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "--disable-plugin onnxx: no installed plugin" in err and "did you mean onnx?" in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_ctrl_c_while_the_plugins_load_is_one_line(model: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    from irconv.cli import convert_cmd

    def interrupted(argv: list[str]) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(convert_cmd, "plugin_host_for", interrupted)
    try:
        code = _run(["convert", str(model), "-o", str(tmp_path / "o.xml")])
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C while the plugins load escaped main(): a traceback")
    assert code == ExitCode.INTERRUPTED
    assert capsys.readouterr().err == "irconv: interrupted; no output was written\n"
