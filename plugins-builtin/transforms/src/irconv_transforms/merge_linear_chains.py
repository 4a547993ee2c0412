"""Chains of Multiply/Add by constants -> one Multiply then one Add."""

from __future__ import annotations

import numpy as np
from irconv import Match, Pat, Rewriter, any_, op
from irconv_opset import Add, Divide, Multiply, Subtract
from irconv_opset.ops.elementwise import BinaryElementwise

from irconv_transforms._fusion import PATTERN_FUSIONS, Fusion, float_const, numpy_broadcast

_X = any_("x")


def _by_const(kind: type[BinaryElementwise], inner: Pat, bind: str, const_bind: str) -> Pat:
    return op(kind, inner, float_const(const_bind), bind=bind, commutative=True, where=numpy_broadcast)


def _single(kind: type[BinaryElementwise], bind: str, const_bind: str) -> Pat:
    return op(kind, _X, float_const(const_bind), bind=bind, commutative=True, where=numpy_broadcast, single_use=True)


class MergeLinearChains(Fusion):
    """Normalise and merge constant scale/shift chains (NumPy broadcasting is associative,
    so the merged constants broadcast to the same output shape):

    - ``(x * a) * b -> x * (a b)``;  ``(x + a) + b -> x + (a + b)``;
    - ``(x + a) * b -> x * b + a b`` (the Multiply moves first, towards a producer's weights);
    - ``x - a -> x + (-a)``;  ``x / a -> x * (1 / a)`` for floating constants;
    - ``x + 0 -> x``, ``x * 1 -> x`` when the constant leaves x's shape and type alone.
    """

    id = "fuse.merge_linear_chains"
    run_after = (*Fusion.run_after, *PATTERN_FUSIONS, "fuse.decompose_batch_norm")
    pattern = (
        _by_const(Multiply, _single(Multiply, "inner", "a"), "outer", "b"),
        _by_const(Add, _single(Add, "inner", "a"), "outer", "b"),
        _by_const(Multiply, _single(Add, "inner", "a"), "outer", "b"),
        op(Subtract, _X, float_const("a"), bind="outer", where=numpy_broadcast),
        op(Divide, _X, float_const("a"), bind="outer", where=numpy_broadcast),
        op((Add, Multiply), _X, float_const("a"), bind="outer", commutative=True, where=numpy_broadcast),
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        outer, x = match["outer"], match.port("x")
        a = match.constant("a")
        if a is None:
            return False
        if isinstance(outer.op, Subtract):
            rw.replace(outer, rw.op(Add(), x, rw.const(-a, like=outer), like=outer))
            return True
        if isinstance(outer.op, Divide):
            with np.errstate(divide="ignore"):
                inverse = (1 / a).astype(a.dtype)
            if not np.all(np.isfinite(inverse)):
                return False
            rw.replace(outer, rw.op(Multiply(), x, rw.const(inverse, like=outer), like=outer))
            return True
        if "b" not in match.nodes:
            identity = 0.0 if isinstance(outer.op, Add) else 1.0
            same = outer.out_port(0).data
            if not (np.all(a == identity) and same.shape == x.data.shape and same.element_type is x.data.element_type):
                return False
            rw.replace(outer, x)
            return True
        b = match.constant("b")
        if b is None:
            return False
        if outer.type == match["inner"].type:
            merged = (a * b) if isinstance(outer.op, Multiply) else (a + b)
            kind = Multiply if isinstance(outer.op, Multiply) else Add
            rw.replace(outer, rw.op(kind(), x, rw.const(merged.astype(a.dtype), like=outer), like=outer))
            return True
        # (x + a) * b -> x * b + a * b
        scaled = rw.op(Multiply(), x, rw.const(b, like=outer), like=outer)
        rw.replace(outer, rw.op(Add(), scaled, rw.const((a * b).astype(a.dtype), like=outer), like=outer))
        return True
