"""log(exp(x) + 1) -> SoftPlus."""

from __future__ import annotations

from irconv import Match, Rewriter, any_, op
from irconv_opset import Add, Exp, Log, SoftPlus

from irconv_transforms._fusion import Fusion, scalar


class FuseSoftPlus(Fusion):
    """``log(exp(x) + 1)`` -> SoftPlus(x)."""

    id = "fuse.softplus"
    pattern = op(
        Log,
        op(Add, op(Exp, any_("x"), single_use=True), scalar(1.0), commutative=True, single_use=True),
        bind="root",
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        rw.replace(match["root"], rw.op(SoftPlus(), match.port("x"), like=match["root"]))
        return True
