"""x / sqrt(sum(x^2) + eps) and its variants -> NormalizeL2."""

from __future__ import annotations

from irconv import Match, Pat, Rewriter, any_, const, op
from irconv_opset import Add, Divide, Maximum, Multiply, NormalizeL2, Power, ReduceSum, Sqrt

from irconv_transforms._fusion import Fusion, float_const, kept_reduction, square_of, uniform


def _patterns() -> tuple[Pat, ...]:
    x = any_("x")
    found = []
    for square in square_of("x"):
        total = op(ReduceSum, square, const("axes"), single_use=True, where=kept_reduction, bind="sum")
        for mode in (Add, Maximum):
            bounded = op(mode, total, float_const("eps"), commutative=True, single_use=True, bind="bound")
            found += [
                op(Divide, x, op(Sqrt, bounded, single_use=True), bind="root"),
                op(Multiply, x, op(Power, bounded, float_const("minus_half"), single_use=True),
                   bind="root", commutative=True),
            ]
        found += [
            op(Divide, x, op(Sqrt, total, single_use=True), bind="root"),
            # x / max(||x||, eps) == x / sqrt(max(sum x^2, eps^2))
            op(Divide, x, op(Maximum, op(Sqrt, total, single_use=True), float_const("norm_eps"),
                               commutative=True, single_use=True), bind="root"),
        ]
    return tuple(found)


class FuseNormalizeL2(Fusion):
    """``x / sqrt(sum(x^2, axes) (+ or max) eps)``, ``x * (...)^-0.5`` and
    ``x / max(sqrt(sum(x^2)), eps)`` (reductions keeping their axes, scalar eps) -> NormalizeL2."""

    id = "fuse.normalize_l2"
    pattern = _patterns()

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        if "minus_half" in match.nodes and uniform(match.constant("minus_half")) != -0.5:
            return False
        eps, mode = 0.0, "add"
        if "eps" in match.nodes:
            value = uniform(match.constant("eps"))
            if value is None or value < 0:
                return False
            eps, mode = value, "add" if isinstance(match["bound"].op, Add) else "max"
        elif "norm_eps" in match.nodes:
            value = uniform(match.constant("norm_eps"))
            if value is None or value < 0:
                return False
            eps, mode = value * value, "max"
        root, x = match["root"], match.port("x")
        axes_value = match.constant("axes")
        if root.out_port(0).data.shape != x.data.shape or axes_value is None:
            return False
        axes = rw.const(axes_value.astype("int64"), like=root)
        rw.replace(root, rw.op(NormalizeL2(eps=eps, eps_mode=mode), x, axes, like=root))
        return True
