"""x * clamp(x + 3, 0, 6) / 6 -> HSwish."""

from __future__ import annotations

from irconv import Match, Rewriter, any_, op
from irconv_opset import Divide, HSigmoid, HSwish, Multiply

from irconv_transforms._fusion import Fusion, scalar
from irconv_transforms.fuse_hsigmoid import relu6_of_x_plus_3

_X = any_("x")


class FuseHSwish(Fusion):
    """``x * hsigmoid(x)`` and ``(x * clamp(x + 3, 0, 6)) / 6`` (or ``* 1/6``) -> HSwish(x)."""

    id = "fuse.hswish"
    run_after = (*Fusion.run_after, "fuse.hsigmoid")
    pattern = (
        op(Multiply, _X, op(HSigmoid, _X, single_use=True), bind="root", commutative=True),
        op(Divide, op(Multiply, _X, relu6_of_x_plus_3(), commutative=True, single_use=True), scalar(6.0),
           bind="root"),
        op(Multiply, op(Multiply, _X, relu6_of_x_plus_3(), commutative=True, single_use=True), scalar(1 / 6),
           bind="root", commutative=True),
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        rw.replace(match["root"], rw.op(HSwish(), match.port("x"), like=match["root"]))
        return True
