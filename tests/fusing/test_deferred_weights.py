"""Rescaled weights computed while the IR is written (``DeferredProduct``), not in the middle
stage: the stored bytes must be those an immediate computation gives, and reading the
constant in between must give the same numbers."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.ops import DeferredConst, DeferredProduct
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder, run_transform
from irconv.testing.runtime import emit_ir
from irconv_opset import Convolution, MatMul, Multiply, ReLU
from irconv_transforms import _weights
from irconv_transforms.fuse_linear_backward import FuseLinearBackward
from irconv_transforms.fuse_linear_forward import FuseLinearForward
from irconv_transforms.transpose_matmul_weights import TransposeMatMulWeights

RNG = np.random.default_rng(7)
K, N = 384, 1024  # 1.5 MiB of f32 weights: above the deferral threshold
W = RNG.standard_normal((K, N)).astype(np.float32)
SCALE = RNG.uniform(0.5, 2, K).astype(np.float32)
CONV_W = RNG.standard_normal((256, 128, 3, 3)).astype(np.float32)  # 1.1 MiB
CONV_SCALE = RNG.uniform(0.5, 2, (1, 256, 1, 1)).astype(np.float32)


def scaled_matmul(scale):
    b = GraphBuilder()
    x = b.parameter("x", (2, K))
    y = b.op(MatMul(), b.op(Multiply(), b.op(ReLU(), x), b.const(scale)), b.const(W))
    b.result(y, "y")
    return b.graph


def scaled_conv():
    b = GraphBuilder()
    x = b.parameter("x", (1, 128, 8, 8))
    conv = b.op(Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)), x, b.const(CONV_W))
    b.result(b.op(Multiply(), conv, b.const(CONV_SCALE)), "y")
    return b.graph


def matmul_rewritten():
    graph = scaled_matmul(SCALE)
    assert run_transform(graph, FuseLinearForward())
    assert run_transform(graph, TransposeMatMulWeights())
    return graph


def weights_op(graph):
    (node,) = [n for n in graph.nodes() if n.type in ("MatMul", "Convolution")]
    return node.in_port(1).get_source().node.op


def written_bytes(graph, tmp_path, name, **options):
    xml = emit_ir(graph, tmp_path / f"{name}.xml", **options)
    return xml.with_suffix(".bin").read_bytes()


def test_the_product_is_left_for_the_emitter():
    op = weights_op(matmul_rewritten())
    assert isinstance(op, DeferredConst) and op.pending is not None
    assert op.stored.shape == (N, K)  # transposed for transpose_b, still not computed


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("build", ["matmul", "conv"])
def test_written_bytes_equal_an_immediate_computation(tmp_path, monkeypatch, compress, build):
    def rewritten():
        if build == "conv":
            graph = scaled_conv()
            assert run_transform(graph, FuseLinearBackward())
            return graph
        graph = scaled_matmul(SCALE)
        assert run_transform(graph, FuseLinearForward())
        assert run_transform(graph, TransposeMatMulWeights())
        return graph

    deferred = rewritten()
    assert weights_op(deferred).pending is not None
    monkeypatch.setattr(_weights, "DEFER_MIN_BYTES", 1 << 62)
    immediate = rewritten()
    assert not isinstance(weights_op(immediate), DeferredConst)
    got = written_bytes(deferred, tmp_path, "deferred", compress_to_fp16=compress)
    want = written_bytes(immediate, tmp_path, "immediate", compress_to_fp16=compress)
    assert len(got) == len(want) and got == want


def test_reading_the_value_computes_it_once():
    op = weights_op(matmul_rewritten())
    value = op.value
    assert op.pending is None and op.value is value
    want = (W * SCALE[:, None]).T
    np.testing.assert_array_equal(value, want)


def test_a_scale_f32_cannot_hold_is_applied_in_float64_and_rounded_once():
    graph = scaled_matmul(SCALE)
    matmul = graph.by_type("MatMul")[0]
    infer_graph(graph)
    scale = RNG.uniform(0.5, 2, K)  # float64, not exact in f32
    product = _weights.scaled(matmul, W, scale, "in")
    assert isinstance(product, DeferredProduct)
    np.testing.assert_array_equal(product.materialize(), (W.astype(np.float64) * scale[:, None]).astype(np.float32))


def test_blocks_cover_the_product_in_c_order():
    base = RNG.standard_normal((6, 5, 7)).astype(np.float32).transpose(2, 0, 1)  # strided
    product = DeferredProduct.of(base, RNG.uniform(0.5, 2, (7, 1, 1)), np.float64)
    whole = product.materialize()
    for elements in (1, 4, 5, 31, 1000):
        joined = np.concatenate([part.materialize().reshape(-1) for part in product.blocks(elements)])
        np.testing.assert_array_equal(joined, whole.reshape(-1))
    np.testing.assert_array_equal(product.T.materialize(), whole.T)
    np.testing.assert_array_equal(np.asarray(product), whole)


def test_a_block_laid_out_unlike_its_base_is_computed_in_the_base_order_then_copied():
    """HWIO weights written as OIHW: the C-order output is filled through a temporary in
    the base's order; the values are those of the direct product, bit for bit."""
    hwio = RNG.standard_normal((3, 3, 8, 16)).astype(np.float32)
    product = DeferredProduct.of(hwio.transpose(3, 2, 0, 1), RNG.uniform(0.5, 2, (16, 1, 1, 1)), np.float64)
    expected = (hwio.transpose(3, 2, 0, 1).astype(np.float64) * product.factor).astype(np.float32)
    parts = []
    for block in product.blocks(200):
        out = np.empty(block.shape, np.float32)  # C order, unlike the transposed base
        assert block.compute_into(out) is out
        parts.append(out.reshape(-1))
    np.testing.assert_array_equal(np.concatenate(parts), expected.reshape(-1))
    c_order = np.empty(product.shape, np.float32)
    np.testing.assert_array_equal(product.compute_into(c_order), expected)
    np.testing.assert_array_equal(product.materialize(), expected)
