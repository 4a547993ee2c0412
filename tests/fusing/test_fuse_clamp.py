"""FuseClamp: fires on the forms exporters write and computes the same in OpenVINO;
look-alikes are left untouched."""

import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import Maximum, Minimum, ReLU
from irconv_transforms.fuse_clamp import FuseClamp

from tests.fusing.unary_forms import c, unary


@pytest.mark.parametrize("form", ["min_max", "max_min", "min_relu"])
def test_clamp(check_fuses, form):
    def body(b, x):
        if form == "min_max":
            return b.op(Minimum(), b.op(Maximum(), x, c(b, -1.5)), c(b, 2.0))
        if form == "max_min":
            return b.op(Maximum(), c(b, -1.5), b.op(Minimum(), x, c(b, 2.0)))
        return b.op(Minimum(), b.op(ReLU(), x), c(b, 6.0))

    check_fuses(unary(body), FuseClamp(), gone=("Minimum", "Maximum", "ReLU"), present=("Clamp",))


def test_clamp_with_crossed_bounds_is_left_alone(check_untouched):
    check_untouched(unary(lambda b, x: b.op(Minimum(), b.op(Maximum(), x, c(b, 2.0)), c(b, -1.0))), FuseClamp())


def test_clamp_by_a_tensor_is_left_alone(check_untouched):
    def build():
        b = GraphBuilder()
        x, hi = b.parameter("x", (2, 3)), b.parameter("hi", (2, 3))
        b.result(b.op(Minimum(), b.op(Maximum(), x, c(b, 0.0)), hi), "y")
        return b.graph

    check_untouched(build, FuseClamp())


def test_integer_clamp(check_fuses):
    """``clamp`` of integer positions (DeBERTa's relative-position buckets): exact bounds."""

    def build():
        b = GraphBuilder()
        x = b.parameter("x", (3, 5), "i64")
        bounded = b.op(Minimum(), b.op(Maximum(), x, b.const(np.int64(0))), b.const(np.int64(63)))
        b.result(bounded, "y")
        return b.graph

    x = np.random.default_rng(0).integers(-100, 200, (3, 5))
    check_fuses(build, FuseClamp(), gone=("Minimum", "Maximum"), present=("Clamp",), inputs={"x": x})
