import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Add, Convolution, ReLU
from irconv_transforms.optimize_resnet_strides import OptimizeResnetStrides

RNG = np.random.default_rng(8)
W3 = RNG.standard_normal((8, 8, 3, 3)).astype(np.float32) * 0.2
W1A = RNG.standard_normal((4, 8, 1, 1)).astype(np.float32)
W1B = RNG.standard_normal((16, 8, 1, 1)).astype(np.float32)
BIAS = RNG.standard_normal((1, 8, 1, 1)).astype(np.float32)


def conv(stride, pads=(0, 0)):
    return Convolution(strides=(stride, stride), dilations=(1, 1), pads_begin=pads, pads_end=pads)


def block(side_reader=False, name="c3"):
    """identity -> [3x3 conv + bias] + identity -> ReLU -> two 1x1 stride-2 convolutions."""

    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 8, 15, 15))
        identity = b.op(ReLU(), x)
        branch = b.op(Add(), b.op(conv(1, (1, 1)), identity, b.const(W3), name=name), b.const(BIAS))
        joined = b.op(ReLU(), b.op(Add(), branch, identity))
        b.result(b.op(conv(2), joined, b.const(W1A)), "a")
        b.result(b.op(conv(2), joined, b.const(W1B)), "b")
        if side_reader:
            b.result(b.op(ReLU(), joined), "side")
        return b.graph

    return build


def test_stride_moves_up_and_the_shortcut_gets_a_pooling(check_fuses):
    graph = check_fuses(block(), OptimizeResnetStrides(), present=("MaxPool",))
    assert graph.node("c3").op.strides == (2, 2)
    assert sorted(c.op.strides for c in graph.by_type("Convolution")) == [(1, 1), (1, 1), (2, 2)]


def test_input_read_by_other_ops_is_left_alone(check_untouched):
    check_untouched(block(side_reader=True), OptimizeResnetStrides())


def test_frozen_convolution_is_left_alone(check_untouched, frozen):
    check_untouched(block(), OptimizeResnetStrides(), frozen("c3"))
