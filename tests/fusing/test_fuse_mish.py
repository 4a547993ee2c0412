"""FuseMish: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

from irconv_opset import ReLU, SoftPlus, Tanh
from irconv_transforms.fuse_mish import FuseMish

from tests.fusing.unary_forms import mul, unary


def test_mish(check_fuses):
    check_fuses(
        unary(lambda b, x: mul(b, x, b.op(Tanh(), b.op(SoftPlus(), x)))),
        FuseMish(),
        gone=("Tanh", "SoftPlus"),
        present=("Mish",),
    )


def test_mish_of_another_tensor_is_left_alone(check_untouched):
    check_untouched(unary(lambda b, x: mul(b, b.op(ReLU(), x), b.op(Tanh(), b.op(SoftPlus(), x)))), FuseMish())
