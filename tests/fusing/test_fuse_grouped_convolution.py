import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Concat, Convolution, Split, VariadicSplit
from irconv_transforms.fuse_grouped_convolution import FuseGroupedConvolution

RNG = np.random.default_rng(7)
WEIGHTS = [RNG.standard_normal((4, 2, 3, 3)).astype(np.float32) for _ in range(3)]


def split_convs(order=(0, 1, 2), variadic=False, name="concat"):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 6, 8, 8))
        axis = b.const(np.int64(1))
        if variadic:
            split = b.node(VariadicSplit(), x, axis, b.const(np.array([2, 2, 2], np.int64)))
        else:
            split = b.node(Split(num_splits=3), x, axis)
        conv = Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))
        outs = [b.op(conv, split.out_port(i), b.const(WEIGHTS[i])) for i in range(3)]
        b.result(b.op(Concat(axis=1), *[outs[i] for i in order], name=name), "y")
        return b.graph

    return build


def test_split_convolutions_concat_become_one_group_convolution(check_fuses):
    graph = check_fuses(
        split_convs(), FuseGroupedConvolution(), gone=("Split", "Convolution", "Concat"), present=("GroupConvolution",)
    )
    assert graph.node("concat").type == "GroupConvolution"


def test_variadic_split_with_equal_parts(check_fuses):
    check_fuses(split_convs(variadic=True), FuseGroupedConvolution(), present=("GroupConvolution",))


def test_concat_in_another_order_is_left_alone(check_untouched):
    check_untouched(split_convs(order=(1, 0, 2)), FuseGroupedConvolution())


def test_frozen_concat_is_left_alone(check_untouched, frozen):
    check_untouched(split_convs(), FuseGroupedConvolution(), frozen("concat"))
