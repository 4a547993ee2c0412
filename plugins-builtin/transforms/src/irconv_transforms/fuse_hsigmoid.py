"""clamp(x + 3, 0, 6) / 6 -> HSigmoid."""

from __future__ import annotations

from irconv import Match, Pat, Rewriter, any_, op
from irconv_opset import Add, Clamp, Divide, HSigmoid, Multiply

from irconv_transforms._fusion import Fusion, scalar


def relu6_of_x_plus_3() -> Pat:
    """Clamp(x + 3, 0, 6), binding x (Min/Max forms are made Clamps by ``fuse.clamp`` first)."""
    return op(
        Clamp,
        op(Add, any_("x"), scalar(3.0), commutative=True, single_use=True),
        where=lambda n: isinstance(n.op, Clamp) and n.op.min == 0.0 and n.op.max == 6.0,
        bind="clamp",
        single_use=True,
    )


class FuseHSigmoid(Fusion):
    """``clamp(x + 3, 0, 6) / 6`` or ``* (1/6)`` -> HSigmoid(x)."""

    id = "fuse.hsigmoid"
    run_after = (*Fusion.run_after, "fuse.clamp")
    pattern = (
        op(Multiply, relu6_of_x_plus_3(), scalar(1 / 6), bind="root", commutative=True),
        op(Divide, relu6_of_x_plus_3(), scalar(6.0), bind="root"),
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        rw.replace(match["root"], rw.op(HSigmoid(), match.port("x"), like=match["root"]))
        return True
