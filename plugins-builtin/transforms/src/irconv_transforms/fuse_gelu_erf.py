"""The erf form of GELU, x * 0.5 * (1 + erf(x / sqrt(2))), -> Gelu(x, mode=erf)."""

from __future__ import annotations

import math

from irconv import Match, Pat, Rewriter, any_, op
from irconv_opset import Add, Divide, Erf, Gelu, Multiply

from irconv_transforms._fusion import Fusion, scalar


def _patterns() -> tuple[Pat, ...]:
    x = any_("x")
    scaled = (
        op(Divide, x, scalar(math.sqrt(2.0))),
        op(Multiply, x, scalar(1 / math.sqrt(2.0)), commutative=True),
    )
    patterns = []
    for inner in scaled:
        one_plus_erf = op(Add, op(Erf, inner, single_use=True), scalar(1.0), single_use=True, commutative=True)
        half = scalar(0.5)
        patterns += [
            # (x * 0.5) * (1 + erf)
            op(Multiply, op(Multiply, x, half, single_use=True, commutative=True), one_plus_erf,
               bind="root", commutative=True),
            # x * ((1 + erf) * 0.5)
            op(Multiply, x, op(Multiply, one_plus_erf, half, single_use=True, commutative=True),
               bind="root", commutative=True),
            # (x * (1 + erf)) * 0.5
            op(Multiply, op(Multiply, x, one_plus_erf, single_use=True, commutative=True), half,
               bind="root", commutative=True),
        ]
    return tuple(patterns)


class FuseGeluErf(Fusion):
    """x * 0.5 * (1 + erf(x / sqrt 2)), in the operand orders exporters write -> Gelu(erf)."""

    id = "fuse.gelu_erf"
    pattern = _patterns()

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        rw.replace(match["root"], rw.op(Gelu(approximation_mode="erf"), match.port("x"), like=match["root"]))
        return True
