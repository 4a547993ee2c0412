import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Reshape
from irconv_transforms.fuse_reshape_chain import FuseReshapeChain

I64 = np.int64


def chain(target, special_zero=False):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 6, 1, 1))
        inner = b.op(Reshape(special_zero=False), x, b.const(np.array([2, 1, 1, 6], I64)))
        b.result(b.op(Reshape(special_zero=special_zero), inner, b.const(np.array(target, I64))), "y")
        return b.graph

    return build


def test_two_reshapes_become_one(check_fuses):
    graph = check_fuses(chain([2, -1]), FuseReshapeChain())
    assert len(graph.by_type("Reshape")) == 1


def test_target_copying_the_intermediate_shape_is_left_alone(check_untouched):
    check_untouched(chain([0, -1], special_zero=True), FuseReshapeChain())
