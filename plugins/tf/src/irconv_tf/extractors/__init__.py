"""Extractors for TensorFlow ops, one module per op family."""

from __future__ import annotations

from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    from irconv_tf.extractors import (
        array,
        control,
        detection,
        elementwise,
        nn,
        quantize,
        rearrange,
        reduce,
        tensor_list,
    )

    result: list[Extractor] = []
    for family in (elementwise, nn, array, rearrange, reduce, quantize, detection, control, tensor_list):
        result.extend(family.extractors())
    return result
