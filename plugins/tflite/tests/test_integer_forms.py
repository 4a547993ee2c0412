"""Full-integer operators against LiteRT, to the integer (``extractors/integer.py``): one
operator per model, written with the flatbuffers builder, on grids chosen to reach the
kernels' corners (fixed-point multipliers of either sign of exponent, the hard-swish mask
that wraps at tiny scales, a fused ReLU, zero points off centre)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import flatbuffers
import numpy as np
import pytest
from irconv.api import convert_model
from irconv.testing.runtime import emit_ir, run_ir
from irconv_tflite.schema import tflite_generated as fb
from tiny_models import ModelSpec, OpSpec, SubgraphSpec, TensorSpec, build

INT8 = fb.TensorType.INT8
Grid = tuple[float, int]


def _fused(start: Callable[[flatbuffers.Builder], None], add: Callable[[flatbuffers.Builder, int], None],
           end: Callable[[flatbuffers.Builder], int], activation: int) -> Callable[[flatbuffers.Builder], int]:
    def write(builder: flatbuffers.Builder) -> int:
        start(builder)
        add(builder, activation)
        return end(builder)

    return write


def _model(code: int, inputs: list[Grid], output: Grid, shape: list[int],
           options: tuple[int, Callable[[flatbuffers.Builder], int]] | None = None) -> bytes:
    tensors = [TensorSpec(f"in{i}", shape, INT8, quantization=([s], [z])) for i, (s, z) in enumerate(inputs)]
    tensors.append(TensorSpec("out", shape, INT8, quantization=([output[0]], [output[1]])))
    count = len(inputs)
    graph = SubgraphSpec(tensors, list(range(count)), [count], [OpSpec(0, list(range(count)), [count], options)])
    return build(ModelSpec([graph], [code]))


def _compare(data: bytes, tmp_path: Path, inputs: int) -> tuple[np.ndarray, np.ndarray]:
    from irconv_tflite.verify import run_interpreter

    path = tmp_path / "op.tflite"
    path.write_bytes(data)
    rng = np.random.default_rng(0)
    feed = {f"in{i}": rng.integers(-128, 128, (1, 8, 8, 16)).astype(np.int8) for i in range(inputs)}
    feed["in0"].reshape(-1)[:256] = np.arange(-128, 128)  # every input value at least once
    expected = run_interpreter(path, feed, None)["out"]
    got = run_ir(emit_ir(convert_model(path), tmp_path / "op.xml"), feed)["out"]
    return got, expected


SHAPE = [1, 8, 8, 16]


@pytest.mark.parametrize("grids", [
    ((0.011151507, 6), (0.0053133643, -57)),  # MobileNetV3's first hard-swish
    ((1.0964535e-08, 1), (9.403837e-09, 0)),   # tiny scales: the kernel's rounding mask wraps
    ((0.5, -20), (0.05, 10)),
], ids=["typical", "tiny", "wide"])
def test_hard_swish(grids: tuple[Grid, Grid], tmp_path: Path) -> None:
    got, expected = _compare(_model(fb.BuiltinOperator.HARD_SWISH, [grids[0]], grids[1], SHAPE), tmp_path, 1)
    np.testing.assert_array_equal(got, expected)


def test_logistic(tmp_path: Path) -> None:
    data = _model(fb.BuiltinOperator.LOGISTIC, [(0.0080726063, 13)], (1 / 256, -128), SHAPE)
    got, expected = _compare(data, tmp_path, 1)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("grids", [
    ((0.02, 3), (0.05, -7), (0.04, -2)),
    ((0.3, 0), (0.001, 100), (0.02, 5)),  # input scales 2^8 apart
], ids=["close", "far"])
def test_add(grids: tuple[Grid, Grid, Grid], relu: bool, tmp_path: Path) -> None:
    activation = fb.ActivationFunctionType.RELU if relu else fb.ActivationFunctionType.NONE
    options = (fb.BuiltinOptions.AddOptions,
               _fused(fb.AddOptionsStart, fb.AddOptionsAddFusedActivationFunction, fb.AddOptionsEnd, activation))
    got, expected = _compare(_model(fb.BuiltinOperator.ADD, list(grids[:2]), grids[2], SHAPE, options), tmp_path, 2)
    np.testing.assert_array_equal(got, expected)


def test_mul(tmp_path: Path) -> None:
    options = (fb.BuiltinOptions.MulOptions,
               _fused(fb.MulOptionsStart, fb.MulOptionsAddFusedActivationFunction, fb.MulOptionsEnd,
                      fb.ActivationFunctionType.RELU6))
    data = _model(fb.BuiltinOperator.MUL, [(0.02, 3), (0.05, -7)], (0.03, -100), SHAPE, options)
    got, expected = _compare(data, tmp_path, 2)
    np.testing.assert_array_equal(got, expected)
