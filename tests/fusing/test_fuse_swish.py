"""FuseSwish: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import numpy as np
import pytest
from irconv_opset import Add, Divide, Exp, Negative, Sigmoid
from irconv_transforms.fuse_swish import FuseSwish

from tests.fusing.unary_forms import F, c, mul, unary


@pytest.mark.parametrize("form", ["sigmoid", "sigmoid_beta", "exp", "exp_beta", "exp_negative_beta"])
def test_swish(check_fuses, form):
    def body(b, x):
        if form == "sigmoid":
            return mul(b, b.op(Sigmoid(), x), x)
        if form == "sigmoid_beta":
            return mul(b, x, b.op(Sigmoid(), mul(b, c(b, 1.7), x)))
        if form == "exp":
            inner = b.op(Negative(), x)
        elif form == "exp_beta":
            inner = b.op(Negative(), mul(b, x, c(b, 0.6)))
        else:
            inner = mul(b, x, c(b, -0.6))
        return b.op(Divide(), x, b.op(Add(), c(b, 1.0), b.op(Exp(), inner)))

    check_fuses(unary(body), FuseSwish(), gone=("Sigmoid", "Exp"), present=("Swish",))


def test_swish_with_a_per_element_beta_is_left_alone(check_untouched):
    beta = np.linspace(0.5, 1.5, 8).astype(F)
    check_untouched(unary(lambda b, x: mul(b, x, b.op(Sigmoid(), mul(b, x, b.const(beta))))), FuseSwish())


def test_frozen_swish_is_left_alone(check_untouched, frozen):
    check_untouched(
        unary(lambda b, x: mul(b, x, b.op(Sigmoid(), x), name="swish_mul")), FuseSwish(), frozen("swish_.*")
    )
