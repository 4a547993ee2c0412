import numpy as np
from irconv import ElementType
from irconv.testing import GraphBuilder
from irconv_opset import (
    Add,
    Convert,
    Convolution,
    ConvolutionBackpropData,
    GroupConvolution,
    MatMul,
    Multiply,
    ReLU,
)
from irconv_transforms.fuse_linear_backward import FuseLinearBackward

RNG = np.random.default_rng(1)
W = RNG.standard_normal((6, 4, 3, 3)).astype(np.float32)
SCALE = RNG.uniform(0.5, 2, (6, 1, 1)).astype(np.float32)
W_GROUP = RNG.standard_normal((3, 2, 2, 3, 3)).astype(np.float32)
W_BACKPROP = RNG.standard_normal((4, 6, 3, 3)).astype(np.float32)
W_MATMUL = RNG.standard_normal((6, 4)).astype(np.float32)
SPATIAL = RNG.standard_normal((6, 8, 8)).astype(np.float32)


def conv_mul(scale=SCALE, mul_input=None, f16=False, extra_user=False, name="mul"):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 4, 8, 8))
        w = b.const(W.astype(np.float16)) if f16 else b.const(W)
        if f16:
            w = b.op(Convert(destination_type=ElementType.f32), w)
        conv = b.op(
            Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)), x, w, name="conv"
        )
        other = b.parameter("s", (1, 6, 1, 1)) if mul_input == "parameter" else b.const(scale)
        b.result(b.op(Multiply(), conv, other, name=name), "y")
        if extra_user:
            b.result(b.op(ReLU(), conv), "z")
        return b.graph

    return build


def test_per_channel_scale_goes_into_convolution_weights(check_fuses):
    graph = check_fuses(conv_mul(), FuseLinearBackward(), gone=("Multiply",))
    assert graph.node("conv").out_port(0).data.names == ["y"]


def test_scalar_scale(check_fuses):
    check_fuses(conv_mul(scale=np.float32(0.7)), FuseLinearBackward(), gone=("Multiply",))


def test_f16_weights_behind_a_convert_stay_f16(check_fuses):
    graph = check_fuses(conv_mul(f16=True), FuseLinearBackward(), gone=("Multiply",), rtol=1e-2, atol=1e-2)
    weights = graph.node("conv").in_port(1).get_source().node
    assert isinstance(weights.op, Convert)
    assert weights.in_port(0).constant(shape_derived=False).dtype == np.float16


def test_group_convolution(check_fuses):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 6, 8, 8))
        w = b.const(W_GROUP)
        conv = b.op(GroupConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)), x, w)
        b.result(b.op(Multiply(), b.const(SCALE), conv), "y")
        return b.graph

    check_fuses(build, FuseLinearBackward(), gone=("Multiply",))


def test_convolution_backprop_data(check_fuses):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 4, 5, 5))
        w = b.const(W_BACKPROP)
        conv = b.op(ConvolutionBackpropData(strides=(2, 2), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)), x, w)
        b.result(b.op(Multiply(), conv, b.const(SCALE)), "y")
        return b.graph

    check_fuses(build, FuseLinearBackward(), gone=("Multiply",))


def test_matmul_with_transposed_weights(check_fuses):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 5, 4))
        w = b.const(W_MATMUL)
        mm = b.op(MatMul(transpose_b=True), x, w)
        b.result(b.op(Multiply(), mm, b.const(SCALE.reshape(6))), "y")
        return b.graph

    check_fuses(build, FuseLinearBackward(), gone=("Multiply",))


def test_multiply_by_a_non_constant_is_left_alone(check_untouched):
    check_untouched(conv_mul(mul_input="parameter"), FuseLinearBackward())


def test_scale_varying_along_space_is_left_alone(check_untouched):
    check_untouched(conv_mul(scale=SPATIAL), FuseLinearBackward())


def test_convolution_read_elsewhere_is_left_alone(check_untouched):
    check_untouched(conv_mul(extra_user=True), FuseLinearBackward())


def test_frozen_node_is_left_alone(check_untouched, frozen):
    check_untouched(conv_mul(), FuseLinearBackward(), frozen("mul"))
    check_untouched(conv_mul(), FuseLinearBackward(), frozen("co.*"))


def test_bias_add_is_not_a_scale(check_untouched):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 4, 8, 8))
        conv = b.op(Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)), x, b.const(W))
        b.result(b.op(Add(), conv, b.const(SCALE)), "y")
        return b.graph

    check_untouched(build, FuseLinearBackward())


W_GROUP_BACKPROP = RNG.standard_normal((2, 2, 3, 3, 3)).astype(np.float32)


def test_group_convolution_backprop_data(check_fuses):
    from irconv_opset import GroupConvolutionBackpropData

    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 4, 5, 5))
        op = GroupConvolutionBackpropData(strides=(2, 2), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))
        conv = b.op(op, x, b.const(W_GROUP_BACKPROP))
        b.result(b.op(Multiply(), conv, b.const(SCALE)), "y")
        return b.graph

    check_fuses(build, FuseLinearBackward(), gone=("Multiply",))
