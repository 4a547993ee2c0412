"""FuseMish: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Add, Exp, Log, Multiply, ReLU, SoftPlus, Tanh
from irconv_transforms.fuse_mish import FuseMish

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


def test_mish(check_fuses):
    check_fuses(
        unary(lambda b, x: mul(b, x, b.op(Tanh(), b.op(SoftPlus(), x)))),
        FuseMish(),
        gone=("Tanh", "SoftPlus"),
        present=("Mish",),
    )


def test_mish_of_another_tensor_is_left_alone(check_untouched):
    check_untouched(unary(lambda b, x: mul(b, b.op(ReLU(), x), b.op(Tanh(), b.op(SoftPlus(), x)))), FuseMish())
