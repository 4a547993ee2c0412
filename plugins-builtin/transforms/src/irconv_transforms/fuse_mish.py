"""x * tanh(softplus(x)) -> Mish."""

from __future__ import annotations

from irconv import Match, Rewriter, any_, op
from irconv_opset import Mish, Multiply, SoftPlus, Tanh

from irconv_transforms._fusion import Fusion

_X = any_("x")


class FuseMish(Fusion):
    """``x * tanh(softplus(x))`` -> Mish(x) (the Log/Exp form becomes SoftPlus first)."""

    id = "fuse.mish"
    run_after = (*Fusion.run_after, "fuse.softplus")
    pattern = op(
        Multiply, _X, op(Tanh, op(SoftPlus, _X, single_use=True), single_use=True), bind="root", commutative=True
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        rw.replace(match["root"], rw.op(Mish(), match.port("x"), like=match["root"]))
        return True
