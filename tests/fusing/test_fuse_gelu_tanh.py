"""FuseGeluTanh: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import math

import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import Add, Multiply, Power, Tanh
from irconv_transforms.fuse_gelu_tanh import FuseGeluTanh

F = np.float32


def unary(body, shape=(2, 3, 8)):
    """A graph y = body(b, x) of one input; ``body`` builds with the GraphBuilder."""

    def build():
        b = GraphBuilder()
        x = b.parameter("x", shape)
        b.result(body(b, x), "y")
        return b.graph

    return build


def mul(b, *xs, name=None):
    return b.op(Multiply(), *xs, name=name)


def c(b, v):
    return b.const(F(v))


@pytest.mark.parametrize("cube", ["power", "multiply"])
def test_gelu_tanh(check_fuses, cube):
    def body(b, x):
        x3 = b.op(Power(), x, c(b, 3.0)) if cube == "power" else mul(b, mul(b, x, x), x)
        inner = mul(b, b.op(Add(), x, mul(b, c(b, 0.044715), x3)), c(b, math.sqrt(2 / math.pi)))
        return mul(b, c(b, 0.5), mul(b, x, b.op(Add(), b.op(Tanh(), inner), c(b, 1.0))))

    check_fuses(unary(body), FuseGeluTanh(), gone=("Tanh",), present=("Gelu",), atol=1e-4)


def test_gelu_tanh_with_another_coefficient_is_left_alone(check_untouched):
    def body(b, x):
        inner = mul(b, b.op(Add(), x, mul(b, c(b, 0.05), b.op(Power(), x, c(b, 3.0)))), c(b, math.sqrt(2 / math.pi)))
        return mul(b, c(b, 0.5), mul(b, x, b.op(Add(), b.op(Tanh(), inner), c(b, 1.0))))

    check_untouched(unary(body), FuseGeluTanh())
