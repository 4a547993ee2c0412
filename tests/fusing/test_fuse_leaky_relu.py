"""FuseLeakyRelu: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

from irconv.testing import GraphBuilder
from irconv_opset import Maximum
from irconv_transforms.fuse_leaky_relu import FuseLeakyRelu

from tests.fusing.unary_forms import c, mul, unary


def test_leaky_relu(check_fuses):
    check_fuses(
        unary(lambda b, x: b.op(Maximum(), mul(b, x, c(b, 0.2)), x)),
        FuseLeakyRelu(),
        gone=("Maximum",),
        present=("PReLU",),
    )


def test_max_with_a_slope_above_one_is_left_alone(check_untouched):
    check_untouched(unary(lambda b, x: b.op(Maximum(), x, mul(b, x, c(b, 1.5)))), FuseLeakyRelu())


def test_max_with_a_non_constant_slope_is_left_alone(check_untouched):
    def build():
        b = GraphBuilder()
        x, a = b.parameter("x", (2, 3)), b.parameter("a", (2, 3))
        b.result(b.op(Maximum(), x, mul(b, x, a)), "y")
        return b.graph

    check_untouched(build, FuseLeakyRelu())
