"""Extractors of the Paddle front end, one module per op family. Each op is registered under
its legacy type (``conv2d``) and its PIR name (``pd_op.conv2d``) when one function reads both."""

from __future__ import annotations

from irconv.frontend import collect
from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    """Every extractor this plugin provides (modules imported here, not at plugin import)."""
    from irconv_paddle.extractors import (
        activations,
        arrays,
        detection,
        elementwise,
        image,
        indexing,
        misc,
        nn,
        recurrent,
        reduction,
        tensor,
    )

    return collect(nn, activations, elementwise, tensor, reduction, image, misc, indexing, detection, recurrent,
                   arrays)
