"""Attribute handling of the opB op families: typed coercion, IR spellings, error messages.

Expected spellings come from the OpenVINO operation specifications.
"""

from __future__ import annotations

import numpy as np
import pytest
from irconv.errors import ConversionError
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv.types import ElementType
from irconv_opset import (
    AvgPool_v1,
    Convolution,
    DetectionOutput,
    Interpolate,
    LSTMSequence,
    MaxPool,
    NonMaxSuppression,
    PriorBox,
    PriorBoxClustered,
)
from irconv_opset.ops._spatial import AutoPad, RoundingType


def test_text_enums_and_lists_take_their_declared_types() -> None:
    op = MaxPool(
        kernel=[2, 2], strides=[2, 2], pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1],
        auto_pad="same_lower", rounding_type="ceil_torch", index_element_type="i32",
    )  # fmt: skip
    assert op.auto_pad is AutoPad.same_lower
    assert op.rounding_type is RoundingType.ceil_torch
    assert op.index_element_type is ElementType.i32
    assert op.kernel == (2, 2) and isinstance(op.strides, tuple)


def test_single_numbers_and_arrays_become_tuples() -> None:
    detection = DetectionOutput(keep_top_k=100)
    assert detection.keep_top_k == (100,)
    pool = MaxPool(kernel=np.array([3, 3]), strides=np.array([2, 2], np.int64))
    assert pool.kernel == (3, 3) and all(type(v) is int for v in pool.strides)


@pytest.mark.parametrize(
    ("make", "attribute"),
    [
        (lambda: Convolution(strides=(1, 1), auto_pad="same"), "auto_pad"),
        (lambda: MaxPool(kernel=(2, 2), rounding_type="round"), "rounding_type"),
        (lambda: Interpolate(mode="bilinear"), "mode"),
        (lambda: NonMaxSuppression(box_encoding="xyxy"), "box_encoding"),
        (lambda: LSTMSequence(direction="both"), "direction"),
    ],
)
def test_misspelt_enum_is_a_conversion_error_naming_the_attribute(make, attribute) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConversionError, match=rf"attribute {attribute}=.* is not one of: "):
        make()


def test_ir_attributes_use_the_spec_spelling() -> None:
    pool = AvgPool_v1(kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1), exclude_pad=True)
    assert pool.ir_attributes() == {
        "strides": "2,2",
        "pads_begin": "1,1",
        "pads_end": "1,1",
        "kernel": "3,3",
        "rounding_type": "floor",
        "auto_pad": "explicit",
        "exclude-pad": "true",
    }
    detection = DetectionOutput(keep_top_k=(100,), code_type="caffe.PriorBoxParameter.CENTER_SIZE")
    written = detection.ir_attributes()
    assert written["code_type"] == "caffe.PriorBoxParameter.CENTER_SIZE"
    assert written["keep_top_k"] == "100"
    clustered = PriorBoxClustered(width=(1.5, 2.0), height=(3.0, 4.25), variance=(0.1, 0.1, 0.2, 0.2))
    assert clustered.ir_attributes()["width"] == "1.5,2"
    assert clustered.ir_attributes()["variance"] == "0.1,0.1,0.2,0.2"


def test_bad_window_attributes_fail_inference_with_the_node_named() -> None:
    builder = GraphBuilder()
    x = builder.parameter("x", (1, 3, 8, 8))
    weights = builder.const(np.ones((4, 3, 3, 3), np.float32))
    builder.result(builder.op(Convolution(strides=(1,), pads_begin=(0, 0), pads_end=(0, 0)), x, weights, name="conv"))
    with pytest.raises(ConversionError, match=r"'conv'.*Convolution-1.*strides \[1\] does not match 2 spatial"):
        infer_graph(builder.graph)


@pytest.mark.parametrize(
    "attributes",
    [
        dict(min_size=(30.0,), fixed_size=(16.0,), density=(1.0,)),  # fixed_size with min_size
        dict(min_size=(30.0,), density=(2.0,)),  # density without fixed_size
        dict(min_size=(0.2,), max_size=(0.4,), scale_all_sizes=False),  # max_size without scale_all_sizes
    ],
)
def test_prior_box_attributes_that_overrun_the_runtime_are_refused(attributes) -> None:  # type: ignore[no-untyped-def]
    builder = GraphBuilder()
    layer, image = builder.const(np.array([3, 3], np.int64)), builder.const(np.array([48, 48], np.int64))
    builder.result(builder.op(PriorBox(**attributes), layer, image, name="priors"))
    with pytest.raises(ConversionError, match=r"'priors'.*allocate \d+ boxes per cell but write \d+"):
        infer_graph(builder.graph)
