"""Divide(Divide(x, a), b) -> Divide(x, a * b) for known constants a and b."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from irconv import Match, PatternRewrite, Rewriter, any_, const, op
from irconv.frontend import numpy_dtype
from irconv_opset import Divide


class MergeDivisions(PatternRewrite):
    """Two divisions by constants in a row are one division by their product."""

    id = "tempered.merge_divisions"
    pattern: ClassVar = op(Divide, op(Divide, any_("x"), const("a"), single_use=True), const("b"), bind="outer")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        a, b = match.constant("a"), match.constant("b")
        if a is None or b is None:
            return False
        x = match.port("x")
        product = np.asarray(a * b, numpy_dtype(x.data.element_type))
        outer = match["outer"]
        rw.replace(outer, rw.op(Divide(), x, rw.const(product, like=outer), like=outer))
        return True
