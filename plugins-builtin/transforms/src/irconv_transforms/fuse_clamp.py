"""Minimum/Maximum by scalar constants -> Clamp."""

from __future__ import annotations

from irconv import Match, Rewriter, any_, op
from irconv_opset import Clamp, Maximum, Minimum, ReLU

from irconv_transforms._fusion import Fusion, keeps_shape, number_const, uniform

_X = any_("x")
#: Clamp's bounds are f64 attributes: integer bounds beyond this would not be exact.
_EXACT_INTEGERS = 2**53


class FuseClamp(Fusion):
    """``min(max(x, lo), hi)``, ``max(min(x, hi), lo)`` (lo <= hi) and ``min(relu(x), hi)``
    (hi >= 0), with scalar floating or integer constants -> Clamp(x, lo, hi) (for integers
    the IR's Clamp clips to ``ceil(lo)``, ``floor(hi)``: the integer bounds themselves)."""

    id = "fuse.clamp"
    pattern = (
        op(Minimum, op(Maximum, _X, number_const("lo"), commutative=True, single_use=True), number_const("hi"),
           bind="root", commutative=True),
        op(Maximum, op(Minimum, _X, number_const("hi"), commutative=True, single_use=True), number_const("lo"),
           bind="root", commutative=True),
        op(Minimum, op(ReLU, _X, single_use=True), number_const("hi"), bind="root", commutative=True),
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
            if value.dtype.kind in "iu" and abs(int(value.reshape(-1)[0])) > _EXACT_INTEGERS:
                return False
            bounds.append(uniform(value))
        lo, hi = bounds
        if lo is None or hi is None or lo > hi:
            return False
        rw.replace(match["root"], rw.op(Clamp(min=lo, max=hi), x, like=match["root"]))
        return True
