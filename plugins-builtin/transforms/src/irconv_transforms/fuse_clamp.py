"""Minimum/Maximum by scalar constants -> Clamp."""

from __future__ import annotations

from irconv import Match, Rewriter, any_, op
from irconv_opset import Clamp, Maximum, Minimum, ReLU

from irconv_transforms._fusion import Fusion, float_const, keeps_shape, uniform

_X = any_("x")


class FuseClamp(Fusion):
    """``min(max(x, lo), hi)``, ``max(min(x, hi), lo)`` (lo <= hi) and ``min(relu(x), hi)``
    (hi >= 0), with scalar floating constants -> Clamp(x, lo, hi)."""

    id = "fuse.clamp"
    pattern = (
        op(Minimum, op(Maximum, _X, float_const("lo"), commutative=True, single_use=True), float_const("hi"),
           bind="root", commutative=True),
        op(Maximum, op(Minimum, _X, float_const("hi"), commutative=True, single_use=True), float_const("lo"),
           bind="root", commutative=True),
        op(Minimum, op(ReLU, _X, single_use=True), float_const("hi"), bind="root", commutative=True),
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        x = match.port("x")
        bounds: list[float | None] = []
        for name in ("lo", "hi"):
            if name not in match.nodes:
                bounds.append(0.0)
                continue
            value = match.constant(name)
            if value is None or not keeps_shape(value, x):
                return False
            bounds.append(uniform(value))
        lo, hi = bounds
        if lo is None or hi is None or lo > hi:
            return False
        rw.replace(match["root"], rw.op(Clamp(min=lo, max=hi), x, like=match["root"]))
        return True
