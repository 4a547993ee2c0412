"""FuseHSigmoid: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import pytest
from irconv_opset import Add, Clamp, Divide
from irconv_transforms.fuse_hsigmoid import FuseHSigmoid

from tests.fusing.unary_forms import c, mul, relu6_plus_3, unary


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
