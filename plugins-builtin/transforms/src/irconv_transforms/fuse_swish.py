"""Swish in the forms exporters write -> Swish(x, beta)."""

from __future__ import annotations

import numpy as np
from irconv import Match, Pat, Rewriter, any_, op

from irconv_transforms._fusion import Fusion, float_const, keeps_shape, scalar, uniform

_X = any_("x")


def _beta_times_x() -> tuple[Pat, ...]:
    return (_X, op("Multiply", _X, float_const("beta"), commutative=True, single_use=True))


def _exp_of(inner: Pat) -> Pat:
    return op("Exp", inner, single_use=True)


def _patterns() -> tuple[Pat, ...]:
    found = []
    for inner in _beta_times_x():
        found.append(op("Multiply", _X, op("Sigmoid", inner, single_use=True), bind="root", commutative=True))
    negated = (
        op("Negative", _X, single_use=True),
        op("Negative", op("Multiply", _X, float_const("beta"), commutative=True, single_use=True), single_use=True),
        op("Multiply", _X, float_const("negbeta"), commutative=True, single_use=True),
    )
    for inner in negated:
        one_plus = op("Add", _exp_of(inner), scalar(1.0), commutative=True, single_use=True)
        found.append(op("Divide", _X, one_plus, bind="root"))
    return tuple(found)


class FuseSwish(Fusion):
    """``x * sigmoid(beta x)`` and ``x / (1 + exp(-beta x))`` (beta a scalar constant,
    1 when absent) -> Swish(x, beta): one op instead of three to five."""

    id = "fuse.swish"
    pattern = _patterns()

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset import Swish

        root, x = match["root"], match.port("x")
        beta: float | None = 1.0
        if "beta" in match.nodes:
            beta = uniform(match["beta"].op.value)  # type: ignore[attr-defined]
        elif "negbeta" in match.nodes:
            negative = uniform(match["negbeta"].op.value)  # type: ignore[attr-defined]
            beta = None if negative is None else -negative
        if beta is None:
            return False
        const = match["beta"] if "beta" in match.nodes else match["negbeta"] if "negbeta" in match.nodes else None
        if const is not None and not keeps_shape(const.op.value, x):  # type: ignore[attr-defined]
            return False  # a broadcasting constant could grow the output
        if beta == 1.0:
            fused = rw.op(Swish(), x, like=root)
        else:
            assert const is not None
            dtype = const.op.value.dtype  # type: ignore[attr-defined]
            fused = rw.op(Swish(), x, rw.const(np.asarray(beta, dtype), like=root), like=root)
        rw.replace(root, fused)
        return True
