"""The tanh form of GELU -> Gelu(x, mode=tanh)."""

from __future__ import annotations

import math

from irconv import Match, Pat, Rewriter, any_, op
from irconv_opset import Add, Gelu, Multiply, Power, Tanh

from irconv_transforms._fusion import Fusion, scalar


def _patterns() -> tuple[Pat, ...]:
    x = any_("x")
    cubes = (
        op(Power, x, scalar(3.0), single_use=True),
        op(Multiply, op(Multiply, x, x, single_use=True), x, single_use=True, commutative=True),
    )
    patterns = []
    for cube in cubes:
        inner = op(Add, x, op(Multiply, cube, scalar(0.044715), single_use=True, commutative=True),
                   single_use=True, commutative=True)
        tanh = op(Tanh, op(Multiply, inner, scalar(math.sqrt(2 / math.pi)), single_use=True, commutative=True),
                  single_use=True)
        one_plus = op(Add, tanh, scalar(1.0), single_use=True, commutative=True)
        half = scalar(0.5)
        patterns += [
            op(Multiply, op(Multiply, x, half, single_use=True, commutative=True), one_plus,
               bind="root", commutative=True),
            op(Multiply, x, op(Multiply, one_plus, half, single_use=True, commutative=True),
               bind="root", commutative=True),
            op(Multiply, op(Multiply, x, one_plus, single_use=True, commutative=True), half,
               bind="root", commutative=True),
        ]
    return tuple(patterns)


class FuseGeluTanh(Fusion):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), x^3 as Power or x*x*x -> Gelu(tanh)."""

    id = "fuse.gelu_tanh"
    pattern = _patterns()

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        rw.replace(match["root"], rw.op(Gelu(approximation_mode="tanh"), match.port("x"), like=match["root"]))
        return True
