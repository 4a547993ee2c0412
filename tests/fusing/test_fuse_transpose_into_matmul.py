"""FuseTransposeIntoMatMul: a Transpose of a MatMul input's last two axes becomes the
MatMul's transpose flag and computes the same in OpenVINO; other permutations stay."""

import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import MatMul, Multiply, ReLU, Transpose
from irconv_transforms.fuse_transpose_into_matmul import FuseTransposeIntoMatMul


def _perm(b, values):
    return b.const(np.asarray(values, np.int64))


@pytest.mark.parametrize(("side", "flag"), [(0, False), (1, False), (1, True), (0, True)])
def test_transposed_input_becomes_the_flag(check_fuses, side, flag):
    """Either input, whatever its flag was: ``[2, 4, 6] x [2, 6, 5]``, the input on ``side``
    stored the other way round and transposed back by a Transpose."""
    on_a, on_c = flag and side == 0, flag and side == 1
    wanted = {0: (2, 6, 4) if on_a else (2, 4, 6), 1: (2, 5, 6) if on_c else (2, 6, 5)}

    def build():
        b = GraphBuilder()
        shapes = dict(wanted)
        shapes[side] = (*wanted[side][:-2], wanted[side][-1], wanted[side][-2])
        inputs = [b.parameter("a", shapes[0]), b.parameter("c", shapes[1])]
        inputs[side] = b.op(Transpose(), inputs[side], _perm(b, [0, 2, 1]))
        op = MatMul(transpose_a=on_a, transpose_b=on_c)
        b.result(b.op(op, *inputs), "y")
        return b.graph

    fused = check_fuses(build, FuseTransposeIntoMatMul(), gone=("Transpose",), present=("MatMul",))
    (matmul,) = [n for n in fused.nodes() if n.type == "MatMul"]
    assert (matmul.op.transpose_a, matmul.op.transpose_b)[side] is (not flag)


def test_transpose_read_elsewhere_stays_for_that_reader(check_fuses):
    def build():
        b = GraphBuilder()
        a, c = b.parameter("a", (3, 4)), b.parameter("c", (5, 4))
        t = b.op(Transpose(), c, _perm(b, [1, 0]))
        b.result(b.op(MatMul(), a, t), "y")
        b.result(b.op(ReLU(), t), "z")
        return b.graph

    fused = check_fuses(build, FuseTransposeIntoMatMul(), present=("Transpose", "MatMul"))
    (matmul,) = [n for n in fused.nodes() if n.type == "MatMul"]
    assert matmul.in_port(1).get_source().node.type == "Parameter"


def test_other_permutations_are_left_alone(check_untouched):
    def build():
        b = GraphBuilder()
        a, c = b.parameter("a", (4, 2, 6)), b.parameter("c", (2, 6, 5))
        b.result(b.op(MatMul(), b.op(Transpose(), a, _perm(b, [1, 0, 2])), c), "y")
        return b.graph

    check_untouched(build, FuseTransposeIntoMatMul())


def test_a_scaled_transpose_is_scaled_then_read_transposed(check_fuses):
    """``q @ (k^T * c)`` (DeBERTa's ``k.transpose(-1, -2) / scale``): ``q @ (k * c)^T``."""

    def build():
        b = GraphBuilder()
        q, k = b.parameter("q", (2, 5, 8)), b.parameter("k", (2, 7, 8))
        kt = b.op(Transpose(), k, _perm(b, [0, 2, 1]))
        b.result(b.op(MatMul(), q, b.op(Multiply(), kt, b.const(np.float32(0.25)))), "y")
        return b.graph

    fused = check_fuses(build, FuseTransposeIntoMatMul(), gone=("Transpose",), present=("Multiply",))
    (matmul,) = [n for n in fused.nodes() if n.type == "MatMul"]
    assert matmul.op.transpose_b and matmul.in_port(1).get_source().node.type == "Multiply"


def test_a_transpose_scaled_by_a_tensor_is_left_alone(check_untouched):
    def build():
        b = GraphBuilder()
        q, k, c = b.parameter("q", (2, 5, 8)), b.parameter("k", (2, 7, 8)), b.parameter("c", (2, 8, 7))
        kt = b.op(Transpose(), k, _perm(b, [0, 2, 1]))
        b.result(b.op(MatMul(), q, b.op(Multiply(), kt, c)), "y")
        return b.graph

    check_untouched(build, FuseTransposeIntoMatMul())
