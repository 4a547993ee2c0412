import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import Add, Divide, Maximum, Multiply, Power, ReduceSum, Sqrt
from irconv_transforms.fuse_normalize_l2 import FuseNormalizeL2

F = np.float32


def l2(form, axes=(-1,), keep=True, square="power", eps=1e-6):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 3, 16))
        sq = b.op(Power(), x, b.const(F(2))) if square == "power" else b.op(Multiply(), x, x)
        total = b.op(ReduceSum(keep_dims=keep), sq, b.const(np.array(axes, np.int64)))
        if form == "add_sqrt":
            y = b.op(Divide(), x, b.op(Sqrt(), b.op(Add(), total, b.const(F(eps)))))
        elif form == "max_rsqrt":
            y = b.op(Multiply(), b.op(Power(), b.op(Maximum(), total, b.const(F(eps))), b.const(F(-0.5))), x)
        else:  # x / max(||x||, eps)
            y = b.op(Divide(), x, b.op(Maximum(), b.op(Sqrt(), total), b.const(F(eps))))
        b.result(y, "y")
        return b.graph

    return build


@pytest.mark.parametrize("form", ["add_sqrt", "max_rsqrt", "max_norm"])
@pytest.mark.parametrize("square", ["power", "multiply"])
def test_normalize_l2(check_fuses, form, square):
    check_fuses(l2(form, square=square), FuseNormalizeL2(), gone=("ReduceSum", "Sqrt"), present=("NormalizeL2",))


def test_over_channels_and_space(check_fuses):
    check_fuses(l2("add_sqrt", axes=(1, 2)), FuseNormalizeL2(), present=("NormalizeL2",))


def test_an_exponent_other_than_minus_half_is_left_alone(check_untouched):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 16))
        total = b.op(ReduceSum(keep_dims=True), b.op(Multiply(), x, x), b.const(np.array([1], np.int64)))
        b.result(b.op(Multiply(), x, b.op(Power(), b.op(Add(), total, b.const(F(1e-6))), b.const(F(-0.4)))), "y")
        return b.graph

    check_untouched(build, FuseNormalizeL2())


def test_reduction_without_kept_axes_is_left_alone(check_untouched):
    check_untouched(l2("add_sqrt", axes=(0,), keep=False), FuseNormalizeL2())
