"""Swish in the forms exporters write -> Swish(x, beta)."""

from __future__ import annotations

import numpy as np
from irconv import Match, Pat, Rewriter, any_, op
from irconv_opset import Add, Divide, Exp, Multiply, Negative, Sigmoid, Swish

from irconv_transforms._fusion import Fusion, float_const, keeps_shape, scalar, uniform

_X = any_("x")


def _beta_times_x() -> tuple[Pat, ...]:
    return (_X, op(Multiply, _X, float_const("beta"), commutative=True, single_use=True))


def _exp_of(inner: Pat) -> Pat:
    return op(Exp, inner, single_use=True)


def _patterns() -> tuple[Pat, ...]:
    found = []
    for inner in _beta_times_x():
        found.append(op(Multiply, _X, op(Sigmoid, inner, single_use=True), bind="root", commutative=True))
    negated = (
        op(Negative, _X, single_use=True),
        op(Negative, op(Multiply, _X, float_const("beta"), commutative=True, single_use=True), single_use=True),
        op(Multiply, _X, float_const("negbeta"), commutative=True, single_use=True),
    )
    for inner in negated:
        one_plus = op(Add, _exp_of(inner), scalar(1.0), commutative=True, single_use=True)
        found.append(op(Divide, _X, one_plus, bind="root"))
    return tuple(found)


class FuseSwish(Fusion):
    """``x * sigmoid(beta x)`` and ``x / (1 + exp(-beta x))`` (beta a scalar constant,
    1 when absent) -> Swish(x, beta): one op instead of three to five."""

    id = "fuse.swish"
    pattern = _patterns()

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        root, x = match["root"], match.port("x")
        name = next((n for n in ("beta", "negbeta") if n in match.nodes), None)
        value = None if name is None else match.constant(name)
        if value is None:
            fused = rw.op(Swish(), x, like=root)
        else:
            beta = uniform(value)
            if beta is None or not keeps_shape(value, x):
                return False  # a varying or broadcasting constant: not one beta for every element
            beta = -beta if name == "negbeta" else beta
            slope = [] if beta == 1.0 else [rw.const(np.asarray(beta, value.dtype), like=root)]
            fused = rw.op(Swish(), x, *slope, like=root)
        rw.replace(root, fused)
        return True
