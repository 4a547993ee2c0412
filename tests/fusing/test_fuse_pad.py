import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import AvgPool, Convolution, MaxPool_v1, Pad, ReLU
from irconv_transforms.fuse_pad import FusePad


def _filters(channels: int) -> np.ndarray:
    return np.random.default_rng(3).standard_normal((5, channels, 3, 3)).astype(np.float32)
I64 = np.int64


def padded(window, value=None, relu=True, begin=(0, 0, 1, 0), end=(0, 0, 1, 2), name="pad"):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 3, 9, 9))
        data = b.op(ReLU(), x) if relu else x
        extra = [] if value is None else [b.const(np.float32(value))]
        pad = b.op(
            Pad(pad_mode="constant"),
            data,
            b.const(np.array(begin, I64)),
            b.const(np.array(end, I64)),
            *extra,
            name=name,
        )
        if window == "conv":
            out = b.op(
                Convolution(strides=(2, 2), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="valid"),
                pad,
                b.const(_filters(3 + begin[1] + end[1])),  # the channels the Pad leaves
            )
        elif window == "avg":
            out = b.op(
                AvgPool(strides=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), kernel=(3, 3), exclude_pad=True), pad
            )
        else:
            out = b.op(MaxPool_v1(strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), kernel=(3, 3)), pad)
        b.result(out, "y")
        return b.graph

    return build


def test_pad_into_convolution(check_fuses):
    graph = check_fuses(padded("conv"), FusePad(), gone=("Pad",))
    conv = graph.by_type("Convolution")[0]
    assert conv.op.pads_begin == (1, 0) and conv.op.pads_end == (1, 2)


def test_pad_with_an_explicit_zero_into_average_pooling(check_fuses):
    graph = check_fuses(padded("avg", value=0.0), FusePad(), gone=("Pad",))
    assert graph.by_type("AvgPool")[0].op.exclude_pad is False


def test_pad_of_a_relu_into_max_pooling(check_fuses):
    check_fuses(padded("max"), FusePad(), gone=("Pad",))


def test_non_zero_pad_value_is_left_alone(check_untouched):
    check_untouched(padded("conv", value=1.0), FusePad())


def test_max_pooling_of_a_signed_input_is_left_alone(check_untouched):
    check_untouched(padded("max", relu=False), FusePad())


def test_channel_padding_is_left_alone(check_untouched):
    check_untouched(padded("conv", begin=(0, 1, 1, 0), end=(0, 0, 1, 2)), FusePad())


def test_frozen_pad_is_left_alone(check_untouched, frozen):
    check_untouched(padded("conv"), FusePad(), frozen("pad"))
