import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import MatMul, ReLU
from irconv_transforms.transpose_matmul_weights import TransposeMatMulWeights

W = np.random.default_rng(10).standard_normal((8, 5)).astype(np.float32)


def matmul(shared=False, transpose_b=False):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 3, 8))
        w = b.const(W.T.copy() if transpose_b else W)
        b.result(b.op(MatMul(transpose_b=transpose_b), x, w), "y")
        if shared:
            b.result(b.op(ReLU(), w), "w")
        return b.graph

    return build


def test_weights_are_stored_transposed(check_fuses):
    graph = check_fuses(matmul(), TransposeMatMulWeights())
    node = graph.by_type("MatMul")[0]
    assert isinstance(node.op, MatMul) and node.op.transpose_b is True
    assert node.in_port(1).constant(shape_derived=False).shape == (5, 8)


def test_already_transposed_or_shared_weights_are_left_alone(check_untouched):
    check_untouched(matmul(transpose_b=True), TransposeMatMulWeights())
    check_untouched(matmul(shared=True), TransposeMatMulWeights())
