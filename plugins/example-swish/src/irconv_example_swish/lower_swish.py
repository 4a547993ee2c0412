"""ExampleSwish(x, beta) -> Multiply(x, Sigmoid(Multiply(x, beta))): stock opset ops only.

Off by default: the IR keeps the custom op (fast, one layer) and the runtime needs the
extension. With ``--example-lower-swish`` (``example_lower_swish=True``) the IR runs on a
stock OpenVINO. It runs in the back phase, after the fusing transforms, so nothing fuses
the pieces back into something else.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from irconv import ElementType, Graph, Match, PatternRewrite, Rewriter, TransformContext, any_, op

from irconv_example_swish.options import LOWER

_NUMPY_FLOATS = (ElementType.f16, ElementType.f32, ElementType.f64)


class LowerExampleSwish(PatternRewrite):
    """ExampleSwish(x) -> Multiply(x, Sigmoid(Multiply(x, beta))) (beta == 1: no inner Multiply)."""

    id = "example.lower_swish"
    pattern: ClassVar = op("ExampleSwish", any_("x"), bind="swish")

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return bool(ctx.options.get(LOWER))

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset import Multiply, Sigmoid

        swish, x = match["swish"], match.port("x")
        beta = float(swish.op.beta)  # type: ignore[attr-defined]
        scaled = x
        if beta != 1.0:
            element_type = x.data.element_type
            dtype = element_type.numpy if element_type in _NUMPY_FLOATS else np.float32
            scaled = rw.op(Multiply(), x, rw.const(np.asarray(beta, dtype), like=swish), like=swish)
        gate = rw.op(Sigmoid(), scaled, like=swish)
        rw.replace(swish, rw.op(Multiply(), x, gate, like=swish))
        return True
