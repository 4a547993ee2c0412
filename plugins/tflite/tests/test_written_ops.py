"""Operators TensorFlow's converter does not make from TensorFlow code (it folds them, or
has no TensorFlow op for them), written with the flatbuffers builder and compared with
the LiteRT interpreter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import flatbuffers
import numpy as np
import pytest
from irconv.api import convert_model
from irconv.testing.runtime import emit_ir, run_ir
from irconv_tflite.schema import tflite_generated as fb
from tiny_models import Operand, build, single_op_model

pytest.importorskip("ai_edge_litert")

RNG = np.random.default_rng(21)


def _compare(spec: bytes, feed: dict[str, np.ndarray], tmp_path: Path) -> None:
    from irconv_tflite.verify import run_interpreter

    path = tmp_path / "op.tflite"
    path.write_bytes(spec)
    expected = run_interpreter(path, feed, None)
    got = run_ir(emit_ir(convert_model(path), tmp_path / "op.xml"), feed)
    for name, value in expected.items():
        assert got[name].shape == value.shape, name
        assert got[name].dtype == value.dtype, name
        np.testing.assert_allclose(got[name], value, atol=1e-5, rtol=1e-5, err_msg=name)


def test_rank(tmp_path: Path) -> None:
    spec = single_op_model(fb.BuiltinOperator.RANK, [Operand("x", [2, 3, 4])], {"rank": []},
                           output_types={"rank": fb.TensorType.INT32})
    _compare(build(spec), {"x": RNG.normal(size=(2, 3, 4)).astype(np.float32)}, tmp_path)


@pytest.mark.parametrize(("first", "second"), [([2, 1, 4], [3, 1]), ([5], [3, 1, 1]), ([1, 6], [4, 6])])
def test_broadcast_args(first: list[int], second: list[int], tmp_path: Path) -> None:
    length = max(len(first), len(second))
    spec = single_op_model(fb.BuiltinOperator.BROADCAST_ARGS,
                           [Operand("a", [len(first)], type=fb.TensorType.INT32),
                            Operand("b", [len(second)], type=fb.TensorType.INT32)],
                           {"shape": [length]}, output_types={"shape": fb.TensorType.INT32})
    feed = {"a": np.array(first, np.int32), "b": np.array(second, np.int32)}
    _compare(build(spec), feed, tmp_path)


def test_embedding_lookup(tmp_path: Path) -> None:
    table = RNG.normal(size=(7, 3)).astype(np.float32)
    spec = single_op_model(fb.BuiltinOperator.EMBEDDING_LOOKUP,
                           [Operand("ids", [5], type=fb.TensorType.INT32), Operand("table", [7, 3], table)],
                           {"rows": [5, 3]})
    _compare(build(spec), {"ids": np.array([6, 0, 3, 3, 1], np.int32)}, tmp_path)


def _pool_options(padding: int, stride: int, size: int) -> Callable[[flatbuffers.Builder], int]:
    def write(builder: flatbuffers.Builder) -> int:
        fb.Pool2DOptionsStart(builder)
        fb.Pool2DOptionsAddPadding(builder, padding)
        fb.Pool2DOptionsAddStrideW(builder, stride)
        fb.Pool2DOptionsAddStrideH(builder, stride)
        fb.Pool2DOptionsAddFilterWidth(builder, size)
        fb.Pool2DOptionsAddFilterHeight(builder, size)
        return fb.Pool2DOptionsEnd(builder)

    return write


@pytest.mark.parametrize(("padding", "out"), [(fb.Padding.SAME, 4), (fb.Padding.VALID, 3)])
def test_l2_pool_2d(padding: int, out: int, tmp_path: Path) -> None:
    """sqrt of the mean of squares per 3x3 window, stride 2 on 8x8 (SAME: padding left out of the mean)."""
    spec = single_op_model(fb.BuiltinOperator.L2_POOL_2D, [Operand("x", [1, 8, 8, 3])], {"y": [1, out, out, 3]},
                           (fb.BuiltinOptions.Pool2DOptions, _pool_options(padding, 2, 3)))
    _compare(build(spec), {"x": RNG.normal(size=(1, 8, 8, 3)).astype(np.float32)}, tmp_path)


@pytest.mark.parametrize("start", [[1, 2], [-1, 5], [3, 0]])
def test_dynamic_update_slice(start: list[int], tmp_path: Path) -> None:
    """The update [2, 3] written into [4, 6] from ``start`` (clamped so it fits)."""
    spec = single_op_model(fb.BuiltinOperator.DYNAMIC_UPDATE_SLICE,
                           [Operand("x", [4, 6]), Operand("update", [2, 3]),
                            Operand("start", [2], type=fb.TensorType.INT32)], {"y": [4, 6]})
    feed = {"x": RNG.normal(size=(4, 6)).astype(np.float32), "update": RNG.normal(size=(2, 3)).astype(np.float32),
            "start": np.array(start, np.int32)}
    _compare(build(spec), feed, tmp_path)
