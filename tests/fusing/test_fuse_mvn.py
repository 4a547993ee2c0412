import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import Add, Divide, Multiply, Power, ReduceMean, Sqrt, SquaredDifference, Subtract
from irconv_transforms.fuse_mvn import FuseMvn

F = np.float32
GAMMA = np.linspace(0.5, 1.5, 16).astype(F)


def mvn(form, var_axes=(-1,), axes=(-1,), shape=(2, 5, 16), name="norm"):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", shape)
        mean = b.op(ReduceMean(keep_dims=True), x, b.const(np.array(axes, np.int64)))
        d = b.op(Subtract(), x, mean)
        if form == "squared_difference":
            sq = b.op(SquaredDifference(), x, mean)
        elif form == "multiply":
            sq = b.op(Multiply(), d, d)
        else:
            sq = b.op(Power(), d, b.const(F(2)))
        var = b.op(ReduceMean(keep_dims=True), sq, b.const(np.array(var_axes, np.int64)))
        if form == "outside":
            y = b.op(Divide(), d, b.op(Add(), b.op(Sqrt(), var), b.const(F(1e-5))), name=name)
        elif form == "rsqrt":
            y = b.op(Multiply(), b.op(Power(), b.op(Add(), var, b.const(F(1e-5))), b.const(F(-0.5))), d, name=name)
        else:
            y = b.op(Divide(), d, b.op(Sqrt(), b.op(Add(), var, b.const(F(1e-5)))), name=name)
        if shape[-1] == 16:  # LayerNorm's affine part stays a Multiply and an Add
            y = b.op(Add(), b.op(Multiply(), y, b.const(GAMMA)), b.const(F(0.1)))
        b.result(y, "y")
        return b.graph

    return build


@pytest.mark.parametrize("form", ["power", "multiply", "squared_difference", "rsqrt", "outside"])
def test_layer_norm_core(check_fuses, form):
    check_fuses(mvn(form), FuseMvn(), gone=("ReduceMean", "Sqrt", "Subtract"), present=("MVN",), atol=1e-4)


def test_instance_norm_over_space(check_fuses):
    check_fuses(mvn("power", axes=(2, 3), var_axes=(2, 3), shape=(1, 3, 6, 6)), FuseMvn(), present=("MVN",), atol=1e-4)


def test_different_axes_for_mean_and_variance_are_left_alone(check_untouched):
    check_untouched(mvn("power", var_axes=(1,)), FuseMvn())


def test_frozen_division_is_left_alone(check_untouched, frozen):
    check_untouched(mvn("power"), FuseMvn(), frozen("norm"))
