"""ExampleSwish(x, beta) -> Multiply(x, Sigmoid(Multiply(x, beta))): stock opset ops only.

Off by default: the IR keeps the custom op (fast, one layer) and the runtime needs the
extension. With ``--example-lower-swish`` (``example_lower_swish=True``) the IR runs on a
stock OpenVINO. It runs in the back phase, after the fusing transforms, so nothing fuses
the pieces back into something else.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from irconv import Graph, Match, PatternRewrite, Rewriter, TransformContext, any_, op
from irconv.frontend import numpy_dtype
from irconv_opset import Multiply, Sigmoid

from irconv_example_swish.ops import ExampleSwish
from irconv_example_swish.options import LOWER


class LowerExampleSwish(PatternRewrite):
    """ExampleSwish(x) -> Multiply(x, Sigmoid(Multiply(x, beta))) (beta == 1: no inner Multiply)."""

    id = "example.lower_swish"
    pattern: ClassVar = op(ExampleSwish, any_("x"), bind="swish")

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return ctx.options.get(LOWER)

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        swish, x = match["swish"], match.port("x")
        beta = match.op("swish", ExampleSwish).beta
        scaled = x
        if beta != 1.0:
            # beta in x's own float type (f32 when the type is unknown).
            value = np.asarray(beta, numpy_dtype(x.data.element_type))
            scaled = rw.op(Multiply(), x, rw.const(value, like=swish), like=swish)
        gate = rw.op(Sigmoid(), scaled, like=swish)
        rw.replace(swish, rw.op(Multiply(), x, gate, like=swish))
        return True
