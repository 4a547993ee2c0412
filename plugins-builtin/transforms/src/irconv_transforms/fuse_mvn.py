"""Mean-variance normalisation written out (LayerNorm's, InstanceNorm's core) -> MVN."""

from __future__ import annotations

import numpy as np
from irconv import Match, Pat, Rewriter, any_, const, op
from irconv_opset import MVN, Add, Divide, Multiply, Power, ReduceMean, Sqrt, SquaredDifference, Subtract

from irconv_transforms._fusion import Fusion, float_const, kept_reduction, scalar, uniform


def _patterns() -> tuple[Pat, ...]:
    x = any_("x")
    mean = op(ReduceMean, x, const(), where=kept_reduction, bind="mean")
    centred = op(Subtract, x, mean, bind="d")
    squares = (
        op(Power, any_("d"), scalar(2.0), single_use=True),
        op(Multiply, any_("d"), any_("d"), single_use=True),
        op(SquaredDifference, any_("x"), any_("mean"), single_use=True, commutative=True),
    )
    found = []
    for square in squares:
        var = op(ReduceMean, square, const("var_axes"), where=kept_reduction, single_use=True)
        inside = op(Add, var, float_const("eps"), commutative=True, single_use=True)
        found += [
            op(Divide, centred, op(Sqrt, inside, single_use=True), bind="root"),
            # both operand orders spelt out: ``centred`` must be matched before ``d`` is reused
            op(Multiply, centred, op(Power, inside, float_const("minus_half"), single_use=True), bind="root"),
            op(Multiply, op(Power, inside, float_const("minus_half"), single_use=True), centred, bind="root"),
            op(Divide, centred, op(Add, op(Sqrt, var, single_use=True), float_const("eps"), commutative=True,
                                     single_use=True, bind="outside"), bind="root"),
        ]
    return tuple(found)


class FuseMvn(Fusion):
    """``(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)`` over constant axes (also
    ``* (...)^-0.5``, the square as Power/Multiply/SquaredDifference, and eps outside the
    root) -> MVN(x, axes, normalize_variance, eps, eps_mode). LayerNorm's scale and shift
    stay a Multiply and an Add after it."""

    id = "fuse.mvn"
    pattern = _patterns()

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        # ``d`` may have been bound through a wildcard first: check its structure here.
        d = match.port("d").node
        x, mean_port = d.in_port(0).get_source(), d.in_port(1).get_source() if d.has_input(1) else None
        if not isinstance(d.op, Subtract) or x is None or mean_port is None or x.data.shape is None:
            return False
        mean = mean_port.node
        if not isinstance(mean.op, ReduceMean) or not kept_reduction(mean) or mean.in_port(0).get_source() != x:
            return False
        if any(match.ports.get(name) not in (None, port) for name, port in (("x", x), ("mean", mean_port))):
            return False
        rank = max(len(x.data.shape), 1)
        mean_axes, var_axes = mean.in_port(1).constant(shape_derived=False), match.constant("var_axes")
        if mean_axes is None or var_axes is None:
            return False
        axes = np.unique(mean_axes.reshape(-1).astype(np.int64) % rank)
        if not np.array_equal(axes, np.unique(var_axes.reshape(-1).astype(np.int64) % rank)):
            return False
        if "minus_half" in match.nodes and uniform(match.constant("minus_half")) != -0.5:
            return False
        eps = uniform(match.constant("eps"))
        root = match["root"]
        if eps is None or eps < 0 or root.out_port(0).data.shape != x.data.shape:
            return False
        mode = "outside_sqrt" if "outside" in match.nodes else "inside_sqrt"
        fused = MVN(normalize_variance=True, eps=eps, eps_mode=mode)
        rw.replace(root, rw.op(fused, x, rw.const(axes, like=root), like=root))
        return True
