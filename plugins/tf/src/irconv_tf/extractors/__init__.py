"""Extractors for TensorFlow ops, one module per op family."""

from __future__ import annotations

from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    from irconv_tf.extractors import (
        array,
        composite,
        control,
        detection,
        elementwise,
        fourier,
        nn,
        nn_extra,
        quantize,
        rearrange,
        reduce,
        scatter,
        tensor_list,
    )

    result: list[Extractor] = []
    families = (elementwise, nn, array, rearrange, reduce, quantize, detection, control, tensor_list)
    for family in (*families, composite, scatter, nn_extra, fourier):
        result.extend(family.extractors())
    return result
