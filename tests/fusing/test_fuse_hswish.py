"""FuseHSwish: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import pytest
from irconv_opset import Divide, HSigmoid
from irconv_transforms.fuse_hswish import FuseHSwish

from tests.fusing.unary_forms import c, mul, relu6_plus_3, unary


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
