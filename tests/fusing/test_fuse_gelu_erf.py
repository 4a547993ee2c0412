"""FuseGeluErf: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import math

import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Add, Divide, Erf, Multiply
from irconv_transforms.fuse_gelu_erf import FuseGeluErf

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


def test_gelu_erf(check_fuses):
    def body(b, x):
        erf = b.op(Erf(), b.op(Divide(), x, c(b, math.sqrt(2))))
        return mul(b, mul(b, x, c(b, 0.5)), b.op(Add(), erf, c(b, 1.0)))

    check_fuses(unary(body), FuseGeluErf(), gone=("Erf",), present=("Gelu",))


def test_a_different_half_is_left_alone(check_untouched):
    def body(b, x):
        erf = b.op(Erf(), b.op(Divide(), x, c(b, math.sqrt(2))))
        return mul(b, mul(b, x, c(b, 0.6)), b.op(Add(), erf, c(b, 1.0)))

    check_untouched(unary(body), FuseGeluErf())
