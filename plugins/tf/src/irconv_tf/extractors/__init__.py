"""Extractors for TensorFlow ops, one module per op family."""

from __future__ import annotations

from irconv.frontend import collect
from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    from irconv_tf.extractors import (
        array,
        combined_nms,
        composite,
        control,
        detection,
        elementwise,
        fourier,
        linalg,
        nn,
        nn_extra,
        partition,
        quantize,
        ragged,
        rearrange,
        reduce,
        resampling,
        sampling,
        scatter,
        sets,
        tensor_list,
    )

    return collect(
        elementwise,
        nn,
        array,
        rearrange,
        reduce,
        quantize,
        detection,
        control,
        tensor_list,
        composite,
        scatter,
        nn_extra,
        fourier,
        partition,
        resampling,
        sampling,
        linalg,
        ragged,
        combined_nms,
        sets,
    )
