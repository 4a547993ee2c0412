"""com.example::Swish(x, beta) -> opset Swish-4(x, beta)."""

from __future__ import annotations

import numpy as np
from irconv.graph import Node, OutPort
from irconv import ExtractContext


def beta_of(node: Node) -> float:
    """Read the ``beta`` attribute (default 1.0) from the ONNX NodeProto."""
    for attribute in node.op.source.attribute:  # type: ignore[attr-defined]
        if attribute.name == "beta":
            return float(attribute.f)
    return 1.0


def extract_swish(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Swish

    beta = ctx.const(np.float32(beta_of(node)), suffix="beta")
    return [ctx.op(Swish(), ctx.input(0), beta)]
