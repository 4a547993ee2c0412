"""FuseSoftPlus: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Add, Exp, Log, Multiply
from irconv_transforms.fuse_softplus import FuseSoftPlus

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


def softplus_form(b, x):
    return b.op(Log(), b.op(Add(), b.op(Exp(), x), c(b, 1.0)))


def test_softplus(check_fuses):
    check_fuses(unary(softplus_form), FuseSoftPlus(), gone=("Log", "Exp"), present=("SoftPlus",))


def test_softplus_with_another_constant_is_left_alone(check_untouched):
    check_untouched(unary(lambda b, x: b.op(Log(), b.op(Add(), b.op(Exp(), x), c(b, 2.0)))), FuseSoftPlus())
