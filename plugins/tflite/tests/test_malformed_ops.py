"""Malformed SPLIT and MEAN operators: one ``irconv: error:`` line naming the operator and
what is wrong with it (exit 1, no output), not a raw ZeroDivisionError / IndexError, nor an
IR the runtime refuses."""

from __future__ import annotations

from pathlib import Path

import flatbuffers
import numpy as np
import pytest
from irconv.cli.main import main
from tiny_models import ModelSpec, OpSpec, SubgraphSpec, TensorSpec, build, fb

QUANTIZED = ([0.05], [0])


def split_model(count: int, size: int = 4) -> ModelSpec:
    """SPLIT of x [1, size] along axis 1 (a constant) into ``count`` parts."""

    def options(builder: flatbuffers.Builder) -> int:
        fb.SplitOptionsStart(builder)
        fb.SplitOptionsAddNumSplits(builder, count)
        return fb.SplitOptionsEnd(builder)

    outputs = list(range(2, 2 + max(count, 1)))
    tensors = [TensorSpec("axis", [], fb.TensorType.INT32, buffer=1), TensorSpec("x", [1, size])]
    tensors += [TensorSpec(f"y{i}", [1, size]) for i in range(len(outputs))]
    main_graph = SubgraphSpec(tensors, [1], outputs,
                              [OpSpec(0, [0, 1], outputs, (fb.BuiltinOptions.SplitOptions, options))])
    return ModelSpec([main_graph], [fb.BuiltinOperator.SPLIT], [b"", np.int32(1).tobytes()])


def mean_model(axes: np.ndarray, shape: list[int], quantized: bool) -> ModelSpec:
    """MEAN (keep_dims) of x ``shape`` over the constant ``axes``; int8 tensors when ``quantized``."""

    def options(builder: flatbuffers.Builder) -> int:
        fb.ReducerOptionsStart(builder)
        fb.ReducerOptionsAddKeepDims(builder, True)
        return fb.ReducerOptionsEnd(builder)

    kind, quantization = (fb.TensorType.INT8, QUANTIZED) if quantized else (fb.TensorType.FLOAT32, None)
    tensors = [TensorSpec("x", shape, kind, quantization=quantization),
               TensorSpec("axes", list(axes.shape), fb.TensorType.INT32, buffer=1),
               TensorSpec("y", [1] * len(shape), kind, quantization=quantization)]
    main_graph = SubgraphSpec(tensors, [0], [2],
                              [OpSpec(0, [0, 1], [2], (fb.BuiltinOptions.ReducerOptions, options))])
    return ModelSpec([main_graph], [fb.BuiltinOperator.MEAN], [b"", axes.astype(np.int32).tobytes()])


def error_line(tmp_path: Path, spec: ModelSpec, capsys: pytest.CaptureFixture[str]) -> str:
    model = tmp_path / "model.tflite"
    model.write_bytes(build(spec))
    code = main(["convert", str(model), "-o", str(tmp_path / "out" / "model.xml")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1, err
    assert len(err) == 1 and err[0].startswith("irconv: error: "), err
    assert "Error:" not in err[0], err  # no raw Python exception (ZeroDivisionError: ...)
    assert not (tmp_path / "out").exists()
    return err[0]


@pytest.mark.parametrize(
    ("count", "words"),
    [
        (0, "node 'y0' (tflite SPLIT): attribute 'num_splits': expected a count of parts of at least 1, found 0"),
        (3, "node 'y0/split' (Split-1) with inputs ([1,4]:f32, []:i32): num_splits 3 does not divide axis 1, of 4"),
    ],
)
def test_split_into_parts_the_axis_cannot_hold(count: int, words: str, tmp_path: Path, capsys) -> None:
    assert words in error_line(tmp_path, split_model(count), capsys)


@pytest.mark.parametrize("quantized", [False, True], ids=["float", "int8"])
def test_mean_over_an_axis_out_of_range(quantized: bool, tmp_path: Path, capsys) -> None:
    line = error_line(tmp_path, mean_model(np.array([1, 9]), [1, 4, 4, 3], quantized), capsys)
    assert "node 'y' " in line and "axis 9 is out of range for rank 4" in line


def test_int8_mean_of_a_scalar(tmp_path: Path, capsys) -> None:
    line = error_line(tmp_path, mean_model(np.array([0]), [], quantized=True), capsys)
    assert line.endswith("node 'y' (tflite MEAN): axis 0 is out of range for rank 0"), line


def test_mean_axes_of_rank_2(tmp_path: Path, capsys) -> None:
    line = error_line(tmp_path, mean_model(np.array([[1, 2]]), [1, 4, 4, 3], quantized=False), capsys)
    assert "node 'y' (ReduceMean-1): input 1 (axes) must have rank 0 or 1, got shape [1, 2]" in line
