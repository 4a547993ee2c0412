import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import Add, Divide, MatMul, Multiply, SoftMax, Transpose
from irconv_transforms.fuse_scaled_dot_product_attention import FuseScaledDotProductAttention

F = np.float32
MASK = np.where(np.random.default_rng(6).random((1, 1, 7, 9)) < 0.2, -1e4, 0).astype(F)


def attention(keys="transpose_b", scale="multiply", mask=True, softmax_axis=-1):
    def build():
        b = GraphBuilder()
        q, k, v = b.parameter("q", (2, 3, 7, 8)), b.parameter("k", (2, 3, 9, 8)), b.parameter("v", (2, 3, 9, 5))
        if keys == "transpose_b":
            s = b.op(MatMul(transpose_b=True), q, k)
        elif keys == "transpose":
            s = b.op(MatMul(), q, b.op(Transpose(), k, b.const(np.array([0, 1, 3, 2], np.int64))))
        else:  # K^T computed by a MatMul: transposed back for the fused op
            s = b.op(MatMul(), q, b.op(MatMul(transpose_a=True), k, b.const(np.eye(9, dtype=F))))
        if scale == "multiply":
            s = b.op(Multiply(), s, b.const(F(0.3)))
        elif scale == "divide":
            s = b.op(Divide(), s, b.const(F(np.sqrt(8))))
        if mask:
            s = b.op(Add(), s, b.const(MASK))
        b.result(b.op(MatMul(), b.op(SoftMax(axis=softmax_axis), s), v), "y")
        return b.graph

    return build


@pytest.mark.parametrize("keys", ["transpose_b", "transpose", "computed"])
@pytest.mark.parametrize("scale", ["multiply", "divide", "none"])
def test_attention(check_fuses, keys, scale):
    graph = check_fuses(
        attention(keys, scale),
        FuseScaledDotProductAttention(),
        gone=("SoftMax",),
        present=("ScaledDotProductAttention",),
        atol=1e-4,
    )
    assert len(graph.by_type("MatMul")) == (keys == "computed")
    assert len(graph.by_type("Transpose")) == (keys == "computed")


def test_without_mask(check_fuses):
    check_fuses(
        attention(mask=False), FuseScaledDotProductAttention(), present=("ScaledDotProductAttention",), atol=1e-4
    )


def test_softmax_over_another_axis_is_left_alone(check_untouched):
    check_untouched(attention(softmax_axis=2), FuseScaledDotProductAttention())
