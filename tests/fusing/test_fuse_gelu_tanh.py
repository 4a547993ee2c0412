"""FuseGeluTanh: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import math

import pytest
from irconv_opset import Add, Power, Tanh
from irconv_transforms.fuse_gelu_tanh import FuseGeluTanh

from tests.fusing.unary_forms import c, mul, unary


@pytest.mark.parametrize("cube", ["power", "multiply"])
def test_gelu_tanh(check_fuses, cube):
    def body(b, x):
        x3 = b.op(Power(), x, c(b, 3.0)) if cube == "power" else mul(b, mul(b, x, x), x)
        inner = mul(b, b.op(Add(), x, mul(b, c(b, 0.044715), x3)), c(b, math.sqrt(2 / math.pi)))
        return mul(b, c(b, 0.5), mul(b, x, b.op(Add(), b.op(Tanh(), inner), c(b, 1.0))))

    check_fuses(unary(body), FuseGeluTanh(), gone=("Tanh",), present=("Gelu",), atol=1e-4)


def test_gelu_tanh_with_another_coefficient_is_left_alone(check_untouched):
    def body(b, x):
        inner = mul(b, b.op(Add(), x, mul(b, c(b, 0.05), b.op(Power(), x, c(b, 3.0)))), c(b, math.sqrt(2 / math.pi)))
        return mul(b, c(b, 0.5), mul(b, x, b.op(Add(), b.op(Tanh(), inner), c(b, 1.0))))

    check_untouched(unary(body), FuseGeluTanh())
