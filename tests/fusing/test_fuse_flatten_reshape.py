import numpy as np
from irconv import ElementType
from irconv.testing import GraphBuilder
from irconv_opset import Concat, ReduceProd, Reshape, ShapeOf, Slice
from irconv_transforms.fuse_flatten_reshape import FuseFlattenReshape

I64 = np.int64


def flatten(stop=1):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 3, 4, 5))
        shape = b.op(ShapeOf(output_type_=ElementType.i64), x)
        head = b.op(Slice(), shape, *(b.const(np.array([v], I64)) for v in (0, stop, 1, 0)))
        outer = b.op(ReduceProd(keep_dims=True), head, b.const(np.array([0], I64)))
        target = b.op(Concat(axis=0), outer, b.const(np.array([-1], I64)))
        b.result(b.op(Reshape(special_zero=False), x, target), "y")
        return b.graph

    return build


def test_flatten_from_axis_1_becomes_one_reshape(check_fuses):
    graph = check_fuses(flatten(), FuseFlattenReshape(), gone=("ShapeOf", "Slice", "ReduceProd", "Concat"))
    assert graph.by_type("Reshape")[0].op.special_zero is True


def test_flatten_from_axis_2_is_left_alone(check_untouched):
    check_untouched(flatten(stop=2), FuseFlattenReshape())
