"""An Add of a negated tensor -> a Subtract."""

from __future__ import annotations

from irconv import Match, Rewriter, any_, op
from irconv_opset import Add, Negative, Subtract

from irconv_transforms._fusion import Fusion


class FuseNegativeIntoSubtract(Fusion):
    """``Add(a, Negative(b))`` (either order) -> ``Subtract(a, b)``, the same numbers (IEEE
    ``a + -b`` is ``a - b``; integers wrap alike), one layer fewer: DeBERTa's
    ``clamp(-relative_positions + k)``."""

    id = "fuse.negative_into_subtract"
    pattern = op(Add, any_("a"), op(Negative, any_("b"), single_use=True), commutative=True, bind="add")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        add = match.op("add", Add)
        rw.replace(match["add"], rw.op(Subtract(auto_broadcast=add.auto_broadcast), match.port("a"), match.port("b"),
                                       like=match["add"]))
        return True
