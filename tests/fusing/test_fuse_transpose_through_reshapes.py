"""FuseTransposeThroughReshapes: ``Reshape(Transpose(Reshape(x, merged leading dims), p),
split back)`` is one Transpose of ``x`` and computes the same in OpenVINO; Reshapes that do
not split the merged dims back are left alone."""

import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Concat, Gather, MatMul, Reshape, ShapeOf, Transpose
from irconv_transforms.fuse_transpose_through_reshapes import FuseTransposeThroughReshapes


def _i64(b, values):
    return b.const(np.asarray(values, np.int64))


def _static(split=(2, 4, 16, 3)):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 4, 3, 16))
        merged = b.op(Reshape(special_zero=False), x, _i64(b, [8, 3, 16]))
        swapped = b.op(Transpose(), merged, _i64(b, [0, 2, 1]))
        b.result(b.op(Reshape(special_zero=False), swapped, _i64(b, list(split))), "y")
        return b.graph

    return build


def test_static_dims_give_one_transpose(check_fuses):
    fused = check_fuses(_static(), FuseTransposeThroughReshapes(), gone=("Reshape",), present=("Transpose",))
    (transpose,) = [n for n in fused.nodes() if n.type == "Transpose"]
    assert transpose.in_port(1).data.get_value().tolist() == [0, 1, 3, 2]


def test_dynamic_dims_the_targets_compute(check_fuses):
    """Heads ``[b, 4, s, 16]`` of a projection viewed as ``[-1, s, 16]``, transposed, viewed
    as ``[b, 4, 16, s]`` with both targets computed from shapes, as the dynamo exporter
    writes ``k.transpose(-1, -2)``."""

    def build():
        b = GraphBuilder()
        x = b.parameter("x", (None, None, 8))
        weights = b.const(np.random.default_rng(1).standard_normal((8, 64)).astype(np.float32))
        heads = b.op(Reshape(special_zero=True), b.op(MatMul(), x, weights), _i64(b, [0, 0, 4, 16]))
        heads = b.op(Transpose(), heads, _i64(b, [0, 2, 1, 3]))
        shape = b.op(ShapeOf(), x)
        batch = b.op(Gather(), shape, _i64(b, [0]), _i64(b, 0))
        seq = b.op(Gather(), shape, _i64(b, [1]), _i64(b, 0))
        merged = b.op(Reshape(special_zero=False), heads, b.op(Concat(axis=0), _i64(b, [-1]), seq, _i64(b, [16])))
        swapped = b.op(Transpose(), merged, _i64(b, [0, 2, 1]))
        target = b.op(Concat(axis=0), batch, _i64(b, [4, 16]), seq)
        b.result(b.op(Reshape(special_zero=False), swapped, target), "y")
        return b.graph

    x = np.random.default_rng(0).standard_normal((2, 5, 8)).astype(np.float32)
    fused = check_fuses(build, FuseTransposeThroughReshapes(), gone=("ShapeOf", "Concat"), inputs={"x": x})
    assert [n.type for n in fused.nodes()].count("Reshape") == 1


def test_a_split_into_other_dims_is_left_alone(check_untouched):
    check_untouched(_static(split=(4, 2, 16, 3)), FuseTransposeThroughReshapes())
