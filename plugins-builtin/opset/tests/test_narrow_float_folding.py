"""Constant folding with narrow floats (bf16, f8: held as codes) and 4-bit weights.

ml_dtypes (a test dependency only) is the independent oracle for bf16 arithmetic: it computes
in f32 and rounds each result to bf16, as folding must."""

from __future__ import annotations

import numpy as np
import pytest
from irconv import Const, narrow_float
from irconv.pipeline.infer import infer_graph
from irconv.testing import GraphBuilder
from irconv.types import ElementType
from irconv_opset import Add, Convert, ConvertPromoteTypes, Multiply, Reshape, Transpose

BF16 = ElementType.bf16
RNG = np.random.default_rng(7)


def _bf16(values: np.ndarray) -> np.ndarray:
    return narrow_float.from_float(values.astype(np.float32), BF16)


def test_bf16_arithmetic_folds_in_f32_rounded_to_bf16() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    builder = GraphBuilder("fold")
    product = builder.op(Multiply(), builder.const(_bf16(a)), builder.const(_bf16(b)))
    total = builder.op(Add(), product, builder.const(_bf16(b)))
    moved = builder.op(Transpose(), total, builder.const(np.array([1, 0], np.int64)))
    flat = builder.op(Reshape(special_zero=False), moved, builder.const(np.array([-1], np.int64)))
    infer_graph(builder.graph)
    oracle_a, oracle_b = a.astype(np.float32).astype(ml_dtypes.bfloat16), b.astype(np.float32).astype(ml_dtypes.bfloat16)
    expected = (oracle_a * oracle_b + oracle_b).T.reshape(-1)
    got = flat.data.value
    assert got is not None and narrow_float.element_type_of(got) is BF16
    assert narrow_float.bits(got).tolist() == expected.view(np.uint16).tolist()


@pytest.mark.parametrize("target", [BF16, ElementType.f8e4m3, ElementType.f16, ElementType.i32])
def test_convert_folds_from_and_to_bf16(target: ElementType) -> None:
    values = np.array([1.0, -2.5, 1 / 3, 300.0, -0.0], np.float32)
    builder = GraphBuilder("convert")
    to_bf16 = builder.op(Convert(destination_type=BF16), builder.const(values))
    out = builder.op(Convert(destination_type=target), to_bf16)
    infer_graph(builder.graph)
    in_bf16 = narrow_float.to_float32(_bf16(values))
    assert narrow_float.bits(to_bf16.data.value).tolist() == [0x3F80, 0xC020, 0x3EAB, 0x4396, 0x8000]
    got = out.data.value
    if target.is_narrow_float:
        expected = narrow_float.to_float32(narrow_float.from_float(in_bf16, target, saturate=False))
        np.testing.assert_array_equal(narrow_float.to_float32(got), expected)
    else:
        np.testing.assert_array_equal(got, in_bf16.astype(target.numpy))


def test_promoting_bf16_and_f16_folds_to_f32() -> None:
    builder = GraphBuilder("promote")
    node = builder.graph.add_node(
        ConvertPromoteTypes(promote_unsafe=True), "p",
        [builder.const(_bf16(np.array([1.5, -3.0]))), builder.const(np.array([0.5, 2.0], np.float16))],
    )
    infer_graph(builder.graph)
    assert node.out_port(0).data.value.tolist() == [1.5, -3.0]
    assert node.out_port(1).data.value.dtype == np.float32


@pytest.mark.parametrize("et", [ElementType.u4, ElementType.nf4, ElementType.f4e2m1])
def test_4bit_weights_are_not_folded(et: ElementType) -> None:
    """A 4-bit constant's decompression stays in the graph (folding it would widen the weights)."""
    builder = GraphBuilder("weights")
    codes = np.array([1, 2, 3, 4], np.uint8).view(et.numpy)
    widened = builder.op(Convert(destination_type=ElementType.f32), builder.const(codes))
    infer_graph(builder.graph)
    assert widened.data.value is None
    assert isinstance(widened.node.in_port(0).get_source().node.op, Const)
