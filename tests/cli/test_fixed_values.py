"""A fixed input value: ``--input x->v`` and ``--freeze-placeholder-with-value x[v]`` follow one
rule (one value fills the input's shape, else one value per element), checked in OpenVINO, and
the note says what the input was frozen to without printing every element."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.cli.main import main

onnx = pytest.importorskip("onnx")
pytest.importorskip("irconv_onnx")
pytest.importorskip("irconv_prep")
from onnx import TensorProto, helper  # noqa: E402


def _model(path: Path, shape: list[int | str]) -> Path:
    """y = x * 2 + 1, so a frozen x shows in y."""
    nodes = [helper.make_node("Mul", ["x", "two"], ["m"]), helper.make_node("Add", ["m", "one"], ["y"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [
            helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
            helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
        ],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


SINGLE = [
    ("--input", "x[1,3,32,32]->[0.5]"),
    ("--input", "x->0.5"),
    ("--freeze-placeholder-with-value", "x[0.5]"),
    ("--freeze-placeholder-with-value", "x->0.5"),
]


@pytest.mark.parametrize(("flag", "value"), SINGLE)
def test_a_single_value_fills_the_input(flag: str, value: str, tmp_path: Path, capsys) -> None:
    pytest.importorskip("openvino")
    from irconv.testing.runtime import run_ir

    out = tmp_path / "o.xml"
    assert main(["convert", str(_model(tmp_path / "m.onnx", [1, 3, 32, 32])), "-o", str(out), flag, value]) == 0
    (y,) = run_ir(out, {}).values()
    np.testing.assert_array_equal(y, np.full((1, 3, 32, 32), 2.0, np.float32))
    printed = capsys.readouterr()
    for line in (printed.out + printed.err).splitlines():
        assert len(line) < 300, line
    done = "frozen" if flag.startswith("--freeze") else "fixed"
    assert f"input 'x' {done} to 0.5 in every element of [1, 3, 32, 32]" in printed.out + printed.err


@pytest.mark.parametrize(
    ("flag", "value"), [("--input", "x->[0.5,1]"), ("--freeze-placeholder-with-value", "x[0.5,1]")]
)
def test_a_wrong_number_of_values_is_the_same_error_for_both_options(flag: str, value: str, tmp_path: Path, capsys):
    out = tmp_path / "o.xml"
    assert main(["convert", str(_model(tmp_path / "m.onnx", [1, 3, 32, 32])), "-o", str(out), "-q", flag, value]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"irconv: error: {flag} x: 2 values for input 'x' of shape [1, 3, 32, 32], which holds 3072; "
        "give one value (it fills the input) or 3072\n"
    )
    assert not out.exists()


@pytest.mark.parametrize(("flag", "value"), [("--input", "x->[0.5]"), ("--freeze-placeholder-with-value", "x[0.5]")])
def test_a_dynamic_input_asks_for_its_shape_and_the_advice_works(flag: str, value: str, tmp_path: Path, capsys):
    pytest.importorskip("openvino")
    from irconv.testing.runtime import run_ir

    model = _model(tmp_path / "m.onnx", ["N", 3])
    out = tmp_path / "o.xml"
    assert main(["convert", str(model), "-o", str(out), "-q", flag, value]) == 1
    err = capsys.readouterr().err
    assert "input 'x' has the dynamic shape [?,3]" in err and "give its shape too, e.g. --input x[2,3]" in err
    shaped = ["--input", "x[2,3]->[0.5]"] if flag == "--input" else ["--input", "x[2,3]", flag, value]
    assert main(["convert", str(model), "-o", str(out), "-q", *shaped]) == 0
    (y,) = run_ir(out, {}).values()
    np.testing.assert_array_equal(y, np.full((2, 3), 2.0, np.float32))


def test_a_frozen_value_of_many_elements_is_summarised(tmp_path: Path, capsys) -> None:
    values = "[" + ",".join(str(i) for i in range(12)) + "]"
    model = _model(tmp_path / "m.onnx", [3, 4])
    argv = ["convert", str(model), "-o", str(tmp_path / "o.xml"), "--freeze-placeholder-with-value", f"x{values}"]
    assert main(argv) == 0
    printed = capsys.readouterr()
    assert "input 'x' frozen to 12 values of shape [3, 4]: 0.0, 1.0, 2.0, 3.0, ..." in printed.out + printed.err
