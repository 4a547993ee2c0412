"""FuseHSwish: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import Add, Clamp, Divide, HSigmoid, Multiply
from irconv_transforms.fuse_hswish import FuseHSwish

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


@pytest.mark.parametrize("form", ["divide", "multiply", "hsigmoid"])
def test_hswish(check_fuses, form):
    def body(b, x):
        if form == "hsigmoid":
            return mul(b, x, b.op(HSigmoid(), x))
        prod = mul(b, x, relu6_plus_3(b, x))
        return b.op(Divide(), prod, c(b, 6.0)) if form == "divide" else mul(b, prod, c(b, 1 / 6))

    check_fuses(unary(body, (2, 3, 40)), FuseHSwish(), gone=("Clamp", "HSigmoid"), present=("HSwish",))


def test_hswish_with_another_divisor_is_left_alone(check_untouched):
    check_untouched(unary(lambda b, x: b.op(Divide(), mul(b, x, relu6_plus_3(b, x)), c(b, 5.0))), FuseHSwish())
