"""max(x, alpha x) -> PReLU with a scalar slope (LeakyReLU)."""

from __future__ import annotations

import numpy as np
from irconv import Match, Rewriter, any_, op
from irconv_opset import Maximum, Multiply, PReLU

from irconv_transforms._fusion import Fusion, float_const, keeps_shape, uniform

_X = any_("x")


class FuseLeakyRelu(Fusion):
    """``max(x, alpha x)`` with a scalar 0 <= alpha <= 1 -> PReLU(x, [alpha]): for x < 0,
    alpha x > x; for x >= 0, x >= alpha x."""

    id = "fuse.leaky_relu"
    pattern = op(
        Maximum,
        _X,
        op(Multiply, _X, float_const("alpha"), commutative=True, single_use=True),
        bind="root",
        commutative=True,
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        value = match.constant("alpha")
        alpha = uniform(value)
        if value is None or alpha is None or not 0.0 <= alpha <= 1.0 or not keeps_shape(value, match.port("x")):
            return False
        slope = rw.const(np.asarray([alpha], value.dtype), like=match["root"])
        rw.replace(match["root"], rw.op(PReLU(), match.port("x"), slope, like=match["root"]))
        return True
