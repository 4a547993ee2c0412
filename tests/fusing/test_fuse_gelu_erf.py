"""FuseGeluErf: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import math

from irconv_opset import Add, Divide, Erf
from irconv_transforms.fuse_gelu_erf import FuseGeluErf

from tests.fusing.unary_forms import c, mul, unary


def test_gelu_erf(check_fuses):
    def body(b, x):
        erf = b.op(Erf(), b.op(Divide(), x, c(b, math.sqrt(2))))
        return mul(b, mul(b, x, c(b, 0.5)), b.op(Add(), erf, c(b, 1.0)))

    check_fuses(unary(body), FuseGeluErf(), gone=("Erf",), present=("Gelu",))


def test_a_different_half_is_left_alone(check_untouched):
    def body(b, x):
        erf = b.op(Erf(), b.op(Divide(), x, c(b, math.sqrt(2))))
        return mul(b, mul(b, x, c(b, 0.6)), b.op(Add(), erf, c(b, 1.0)))

    check_untouched(unary(body), FuseGeluErf())
