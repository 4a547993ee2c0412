"""FuseHSigmoid: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import Add, Clamp, Divide, Multiply
from irconv_transforms.fuse_hsigmoid import FuseHSigmoid

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


def relu6_plus_3(b, x):
    return b.op(Clamp(min=0.0, max=6.0), b.op(Add(), x, c(b, 3.0)))


@pytest.mark.parametrize("divide", [True, False])
def test_hsigmoid(check_fuses, divide):
    def body(b, x):
        r = relu6_plus_3(b, x)
        return b.op(Divide(), r, c(b, 6.0)) if divide else mul(b, r, c(b, 1 / 6))

    check_fuses(unary(body, (2, 3, 40)), FuseHSigmoid(), gone=("Clamp",), present=("HSigmoid",))


def test_clamp_to_another_range_is_left_alone(check_untouched):
    def body(b, x):
        return mul(b, b.op(Clamp(min=0.0, max=5.0), b.op(Add(), x, c(b, 3.0))), c(b, 1 / 6))

    check_untouched(unary(body), FuseHSigmoid())
