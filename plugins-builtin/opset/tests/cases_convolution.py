"""Cases for the convolution family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    Convolution,
    ConvolutionBackpropData,
    DeformableConvolution,
    DeformableConvolution_v1,
    GroupConvolution,
    GroupConvolutionBackpropData,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(7)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


CASES: list[OpCase] = [
    OpCase(
        Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)),
        [tensor(1, 3, 8, 8), const(tensor(4, 3, 3, 3))],
        id="conv2d_pad1",
    ),
    OpCase(
        Convolution(strides=(2, 2), dilations=(2, 1), pads_begin=(0, 1), pads_end=(2, 0)),
        [tensor(2, 3, 11, 10), const(tensor(5, 3, 3, 2))],
        id="conv2d_stride_dilation_asym",
    ),
    OpCase(
        Convolution(strides=(2, 2), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="same_upper"),
        [tensor(1, 2, 7, 9), const(tensor(3, 2, 3, 4))],
        id="conv2d_same_upper",
    ),
    OpCase(
        Convolution(strides=(3,), dilations=(1,), pads_begin=(0,), pads_end=(0,), auto_pad="same_lower"),
        [tensor(1, 2, 10), const(tensor(3, 2, 4))],
        id="conv1d_same_lower",
    ),
    OpCase(
        Convolution(strides=(1, 1, 1), dilations=(1, 1, 1), pads_begin=(5, 5, 5), pads_end=(5, 5, 5), auto_pad="valid"),
        [tensor(1, 2, 5, 6, 7), const(tensor(2, 2, 2, 3, 2))],
        id="conv3d_valid",
    ),
    OpCase(
        Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)),
        [tensor(1, 3, 6, 6), tensor(2, 3, 3, 3)],
        id="conv2d_filters_as_input",
        dynamic=False,  # the CPU plugin needs static weights shapes
    ),
    OpCase(
        GroupConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)),
        [tensor(1, 6, 7, 7), const(tensor(3, 2, 2, 3, 3))],
        id="group_conv",
    ),
    OpCase(
        GroupConvolution(strides=(2, 2), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="same_upper"),
        [tensor(1, 4, 9, 9), const(tensor(4, 1, 1, 3, 3))],
        id="depthwise_same_upper",
    ),
    OpCase(
        ConvolutionBackpropData(
            strides=(2, 2), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1), output_padding=(1, 1)
        ),
        [tensor(1, 4, 5, 5), const(tensor(4, 3, 3, 3))],
        id="deconv_output_padding",
    ),
    OpCase(
        ConvolutionBackpropData(
            strides=(2, 2), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="same_upper"
        ),
        [tensor(1, 4, 5, 6), const(tensor(4, 2, 3, 3))],
        id="deconv_same_upper",
    ),
    OpCase(
        ConvolutionBackpropData(strides=(2, 2), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)),
        [tensor(1, 4, 5, 5), const(tensor(4, 2, 3, 3)), const(np.array([12, 11], np.int64))],
        id="deconv_output_shape",
    ),
    OpCase(
        GroupConvolutionBackpropData(strides=(2, 2), dilations=(2, 2), pads_begin=(1, 0), pads_end=(0, 1)),
        [tensor(1, 4, 5, 5), const(tensor(2, 2, 3, 3, 3))],
        id="group_deconv",
    ),
    OpCase(
        DeformableConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)),
        [tensor(1, 2, 6, 6), tensor(1, 18, 6, 6), const(tensor(3, 2, 3, 3))],
        id="deformable",
        check_values=False,
    ),
    OpCase(
        DeformableConvolution(
            strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), group=2, deformable_group=2
        ),
        [tensor(1, 4, 6, 6), tensor(1, 36, 4, 4), const(tensor(2, 2, 3, 3)), tensor(1, 18, 4, 4)],
        id="deformable_mask_groups",
        check_values=False,
    ),
    OpCase(
        DeformableConvolution_v1(
            strides=(2, 2), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1), deformable_group=2
        ),
        [tensor(1, 4, 7, 7), tensor(1, 36, 4, 4), const(tensor(3, 4, 3, 3))],
        id="deformable_v1",
        check_values=False,
    ),
    OpCase(
        ConvolutionBackpropData(
            strides=(2, 3), dilations=(1, 2), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="same_lower"
        ),
        [tensor(2, 3, 4, 5), const(tensor(3, 2, 3, 2)), const(np.array([8, 14], np.int64))],
        id="deconv_output_shape_same_lower",
    ),
    OpCase(
        ConvolutionBackpropData(strides=(2,), dilations=(1,), pads_begin=(2,), pads_end=(1,), output_padding=(1,)),
        [tensor(1, 2, 6), const(tensor(2, 3, 4))],
        id="deconv1d_pads",
    ),
    OpCase(
        GroupConvolutionBackpropData(strides=(2, 2), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)),
        [tensor(1, 4, 3, 3), const(tensor(2, 2, 2, 3, 3)), const(np.array([8, 7], np.int64))],
        id="group_deconv_output_shape",
    ),
    OpCase(
        ConvolutionBackpropData(strides=(2, 2), dilations=(1, 1), pads_begin=(1, 2), pads_end=(0, 0)),
        [tensor(1, 2, 4, 4), const(tensor(2, 3, 3, 3)), const(np.array([7, 6], np.int64))],
        id="deconv_output_shape_explicit_pads",
    ),
]
