"""Hook implementations of irconv-example-swish."""

from __future__ import annotations

from irconv.plugins import Extractor, Transform, hookimpl, opsets

from irconv_example_swish.extractors import extract_swish
from irconv_example_swish.fuse_double_relu import FuseDoubleRelu


@hookimpl
def extract_op() -> list[Extractor]:
    return [Extractor("onnx", "Swish", extract_swish, domain="com.example", opsets=opsets(1), produces="Swish")]


@hookimpl
def middle_transform() -> list[Transform]:
    return [FuseDoubleRelu()]
