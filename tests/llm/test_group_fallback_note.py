"""A 4-bit layer whose input channels --group-size does not divide gets one scale per output
channel; the note names those layers instead of falling back silently."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.cli.main import main

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _chain(path: Path, widths: list[int]) -> Path:
    """x -> MatMul(w0) -> ... one MatMul per step, named mm<input channels>."""
    rng = np.random.default_rng(0)
    nodes, weights, current = [], [], "x"
    for i, (cols, rows) in enumerate(zip(widths, widths[1:], strict=False)):
        name = f"w{i}"
        weights.append(numpy_helper.from_array(rng.standard_normal((cols, rows)).astype(np.float32), name))
        nodes.append(helper.make_node("MatMul", [current, name], [f"y{i}"], name=f"mm{i}_in{cols}"))
        current = f"y{i}"
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, widths[0]])],
        [helper.make_tensor_value_info(current, TensorProto.FLOAT, [1, widths[-1]])],
        weights,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _notes(capsys: pytest.CaptureFixture[str]) -> str:
    printed = capsys.readouterr()
    return printed.out + printed.err


def test_layers_the_default_group_does_not_divide_are_named(tmp_path: Path, capsys) -> None:
    pytest.importorskip("irconv_llm")
    # input channels 64, 96 (fewer than 128), 256 (two groups), 192 (not a multiple); the last
    # MatMul is the last projection: int8, one scale per row by design, not named
    model = _chain(tmp_path / "chain.onnx", [64, 96, 256, 192, 128, 8])
    assert main(["convert", str(model), "-o", str(tmp_path / "o.xml"), "--weight-format", "int4-sym"]) == 0
    notes = _notes(capsys)
    assert (
        "--group-size 128 does not divide the input channels of 3 4-bit layer(s), which get one scale per "
        "output channel instead: mm0_in64 (64), mm1_in96 (96), mm3_in192 (192); --group-size 32 divides them all"
    ) in notes
    assert "mm2_in256" not in notes and "mm4_in128" not in notes


def test_a_group_that_divides_every_layer_gives_no_note(tmp_path: Path, capsys) -> None:
    pytest.importorskip("irconv_llm")
    model = _chain(tmp_path / "chain.onnx", [64, 96, 256, 192, 128, 8])
    argv = ["convert", str(model), "-o", str(tmp_path / "o.xml"), "--weight-format", "int4-sym", "--group-size", "32"]
    assert main(argv) == 0
    assert "does not divide" not in _notes(capsys)


def test_more_layers_than_shown_are_counted(tmp_path: Path, capsys) -> None:
    pytest.importorskip("irconv_llm")
    model = _chain(tmp_path / "chain.onnx", [48, 48, 48, 48, 48, 48, 8])
    assert main(["convert", str(model), "-o", str(tmp_path / "o.xml"), "--weight-format", "int4-asym"]) == 0
    assert "of 5 4-bit layer(s)" in (notes := _notes(capsys)) and "mm2_in48 (48) and 2 more" in notes
