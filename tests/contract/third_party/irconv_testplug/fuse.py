"""Sharpen(Sharpen(x, a), b) -> Sharpen(x, a*b)."""

from irconv import Match, PatternRewrite, Rewriter, any_, op

from irconv_testplug.ops import Sharpen


class FuseSharpen(PatternRewrite):
    """Two Sharpen ops in a row are one, with the product of their factors."""

    id = "testplug.fuse_sharpen"
    pattern = op(Sharpen, op(Sharpen, any_("x"), bind="inner", single_use=True), bind="outer")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        factor = match.op("inner", Sharpen).factor * match.op("outer", Sharpen).factor
        rw.replace(match["outer"], rw.op(Sharpen(factor=factor), match.port("x"), like=match["outer"]))
        return True
