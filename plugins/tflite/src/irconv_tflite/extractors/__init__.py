"""The TFLite extractors, one module per family."""

from __future__ import annotations

from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    from irconv.frontend import collect

    from irconv_tflite.extractors import (
        control_flow,
        detection,
        elementwise,
        indexing,
        nn,
        quantization,
        recurrent,
        signal,
        spatial,
        tensor,
    )

    return collect(nn, elementwise, tensor, indexing, spatial, signal, quantization, control_flow, detection, recurrent)
