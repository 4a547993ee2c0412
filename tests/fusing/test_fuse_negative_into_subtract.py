"""FuseNegativeIntoSubtract: ``a + (-b)`` is ``a - b`` in OpenVINO too; a negation read
elsewhere stays."""

import numpy as np
import pytest
from irconv.testing import GraphBuilder
from irconv_opset import Add, Negative, ReLU
from irconv_transforms.fuse_negative_into_subtract import FuseNegativeIntoSubtract


@pytest.mark.parametrize("negated_first", [False, True])
@pytest.mark.parametrize("element_type", ["f32", "i64"])
def test_add_of_a_negation_is_a_subtraction(check_fuses, negated_first, element_type):
    def build():
        b = GraphBuilder()
        a, c = b.parameter("a", (2, 3), element_type), b.parameter("c", (3,), element_type)
        minus = b.op(Negative(), c)
        b.result(b.op(Add(), *((minus, a) if negated_first else (a, minus))), "y")
        return b.graph

    rng = np.random.default_rng(0)
    dtype = np.float32 if element_type == "f32" else np.int64
    inputs = {"a": (rng.standard_normal((2, 3)) * 50).astype(dtype), "c": (rng.standard_normal(3) * 50).astype(dtype)}
    check_fuses(build, FuseNegativeIntoSubtract(), gone=("Negative", "Add"), present=("Subtract",), inputs=inputs)


def test_a_negation_read_elsewhere_is_left_alone(check_untouched):
    def build():
        b = GraphBuilder()
        a, c = b.parameter("a", (2, 3)), b.parameter("c", (2, 3))
        minus = b.op(Negative(), c)
        b.result(b.op(Add(), a, minus), "y")
        b.result(b.op(ReLU(), minus), "z")
        return b.graph

    check_untouched(build, FuseNegativeIntoSubtract())
