"""FuseSoftPlus: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

from irconv_opset import Add, Exp, Log
from irconv_transforms.fuse_softplus import FuseSoftPlus

from tests.fusing.unary_forms import c, softplus_form, unary


def test_softplus(check_fuses):
    check_fuses(unary(softplus_form), FuseSoftPlus(), gone=("Log", "Exp"), present=("SoftPlus",))


def test_softplus_with_another_constant_is_left_alone(check_untouched):
    check_untouched(unary(lambda b, x: b.op(Log(), b.op(Add(), b.op(Exp(), x), c(b, 2.0)))), FuseSoftPlus())
