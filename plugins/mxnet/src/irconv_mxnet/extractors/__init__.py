"""Extractors of the MXNet front end, one module per op family.

``Custom`` ops are not here: the loader keys each on its ``op_type`` (the extractor's
``domain``), so a plugin supporting a custom layer registers
``extractor("mxnet", "Custom", extract, domain="<op_type>", produces=[...])``.
"""

from __future__ import annotations

from irconv.frontend import collect
from irconv.plugins import Extractor


def all_extractors() -> list[Extractor]:
    """Every extractor this plugin provides (modules imported here, not at plugin import)."""
    from irconv_mxnet.extractors import (
        activations,
        detection,
        elementwise,
        extra,
        indexing,
        nms,
        nn,
        normalization,
        proposal,
        recurrent,
        shape,
    )

    return collect(nn, normalization, activations, elementwise, shape, indexing, detection, nms, extra, recurrent,
                   proposal)
