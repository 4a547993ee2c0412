"""TensorFlow complex tensors and Fourier transforms."""

from __future__ import annotations

from irconv.plugins import Extractor

from irconv_tf.extractors._base import table


def extractors() -> list[Extractor]:
    return table({})
