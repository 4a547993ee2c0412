import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Add, Convolution, GroupConvolution, MatMul, Multiply, ReLU
from irconv_transforms.fuse_linear_forward import FuseLinearForward

RNG = np.random.default_rng(2)
W = RNG.standard_normal((6, 4, 3, 3)).astype(np.float32)
W_GROUP = RNG.standard_normal((2, 3, 2, 3, 3)).astype(np.float32)
W_MATMUL = RNG.standard_normal((4, 6)).astype(np.float32)
C = RNG.uniform(0.5, 2, (4, 1, 1)).astype(np.float32)
BIAS = RNG.standard_normal((6, 1, 1)).astype(np.float32)


def linear_conv(kind, pads=(0, 0), then_bias=False, operand="const", name="linear"):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 4, 8, 8))
        other = b.parameter("c", (1, 4, 1, 1)) if operand == "parameter" else b.const(C)
        linear = b.op(kind(), b.op(ReLU(), x), other, name=name)
        conv = b.op(Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=pads, pads_end=pads), linear, b.const(W))
        b.result(b.op(Add(), conv, b.const(BIAS)) if then_bias else conv, "y")
        return b.graph

    return build


def test_scale_goes_into_the_next_convolution(check_fuses):
    check_fuses(linear_conv(Multiply, pads=(1, 1)), FuseLinearForward(), gone=("Multiply",))


def test_shift_before_an_unpadded_convolution_becomes_its_bias(check_fuses):
    graph = check_fuses(linear_conv(Add), FuseLinearForward(), present=("Add",))
    assert [n.type for n in graph.topological_order()].count("Add") == 1


def test_shift_merges_into_the_following_bias(check_fuses):
    graph = check_fuses(linear_conv(Add, then_bias=True), FuseLinearForward())
    assert [n.type for n in graph.topological_order()].count("Add") == 1


def test_shift_into_a_group_convolution(check_fuses):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 4, 8, 8))
        shifted = b.op(Add(), b.op(ReLU(), x), b.const(C))
        conv = b.op(
            GroupConvolution(strides=(2, 2), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)),
            shifted,
            b.const(W_GROUP),
        )
        b.result(conv, "y")
        return b.graph

    check_fuses(build, FuseLinearForward())


def test_scale_and_shift_into_matmul(check_fuses):
    def build(kind):
        def inner():
            b = GraphBuilder()
            x = b.parameter("x", (3, 4))
            linear = b.op(kind(), x, b.const(C.reshape(4)))
            b.result(b.op(MatMul(), linear, b.const(W_MATMUL)), "y")
            return b.graph

        return inner

    check_fuses(build(Multiply), FuseLinearForward(), gone=("Multiply",))
    check_fuses(build(Add), FuseLinearForward())


def test_shift_before_a_padded_convolution_is_left_alone(check_untouched):
    check_untouched(linear_conv(Add, pads=(1, 1)), FuseLinearForward())


def test_multiply_by_a_non_constant_is_left_alone(check_untouched):
    check_untouched(linear_conv(Multiply, operand="parameter"), FuseLinearForward())


def test_frozen_node_is_left_alone(check_untouched, frozen):
    check_untouched(linear_conv(Multiply), FuseLinearForward(), frozen("linear"))


W_BACKPROP = RNG.standard_normal((4, 6, 3, 3)).astype(np.float32)


def test_scale_goes_into_a_transposed_convolution(check_fuses):
    from irconv_opset import ConvolutionBackpropData

    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 4, 5, 5))
        scaled = b.op(Multiply(), b.op(ReLU(), x), b.const(C))
        op = ConvolutionBackpropData(strides=(2, 2), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))
        b.result(b.op(op, scaled, b.const(W_BACKPROP)), "y")
        return b.graph

    check_fuses(build, FuseLinearForward(), gone=("Multiply",))
