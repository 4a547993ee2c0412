"""Extractors for Keras layer classes, one module per layer family."""

from __future__ import annotations

from irconv.frontend import collect
from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    from irconv_tf.keras_reader.extractors import (
        activations,
        attention,
        convolution,
        core,
        merging,
        normalization,
        pooling,
        recurrent,
        reshaping,
    )

    return collect(activations, attention, convolution, core, merging, normalization, pooling, recurrent, reshaping)
