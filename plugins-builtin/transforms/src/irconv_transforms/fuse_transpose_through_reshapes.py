"""A Transpose between a Reshape merging leading dims and one splitting them back -> a Transpose."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from irconv import Match, Rewriter, any_, const, op
from irconv.graph.symbolic import symbolic_shape
from irconv.types_symbols import SymDim, product, value_of
from irconv_opset import Reshape, Transpose

from irconv_transforms._fusion import Fusion


class FuseTransposeThroughReshapes(Fusion):
    """``Reshape(Transpose(Reshape(x, [d0 * .. * dk, rest]), p), [d0, .., dk, p(rest)])``
    with ``p`` keeping axis 0 -> ``Transpose(x, [0, .., k, k + p(rest)])``: the symbols prove
    the outer Reshape splits the merged dims back. ``k.transpose(-1, -2)`` of a ``[b, h, s, d]``
    tensor, which the dynamo exporter writes as a 3-D transpose of ``[b * h, s, d]``, becomes
    the Transpose of its last two axes the attention fusions know (and the shape arithmetic of
    both targets goes). A Transpose computing ``x`` stays apart: merged with it, the
    attention's ``K^T`` would no longer be one."""

    id = "fuse.transpose_through_reshapes"
    pattern = op(
        Reshape,
        op(Transpose, op(Reshape, any_("x"), any_(), single_use=True, bind="merge"), const("perm"), single_use=True),
        any_(),
        bind="split",
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        perm = match.constant("perm")
        x = match.port("x")
        if perm is None:
            return False
        inner = [int(p) for p in np.asarray(perm).reshape(-1)]
        outer = _outer_perm(symbolic_shape(x), symbolic_shape(match["merge"].out_port(0)), inner,
                            symbolic_shape(match["split"].out_port(0)))
        if outer is None:
            return False
        if outer == list(range(len(outer))):
            rw.replace(match["split"], x)
            return True
        order = rw.const(np.asarray(outer, np.int64), like=match["split"])
        rw.replace(match["split"], rw.op(Transpose(), x, order, like=match["split"]))
        return True


def _outer_perm(
    data: tuple[SymDim, ...] | None,
    merged: tuple[SymDim, ...] | None,
    perm: list[int],
    split: tuple[SymDim, ...] | None,
) -> list[int] | None:
    """The permutation of ``data`` the three ops amount to, or None when the Reshapes are not
    a merge of ``data``'s first ``k + 1`` dims and its exact inverse around ``perm``."""
    if data is None or merged is None or split is None or len(perm) != len(merged) or not perm or perm[0] != 0:
        return None
    k = len(data) - len(merged)  # dims merged into axis 0, besides the first
    if k < 1 or len(split) != len(data) or not _same(merged[1:], data[k + 1 :]):
        return None
    if not _same((merged[0],), (product(data[: k + 1]),)):
        return None
    outer = list(range(k + 1)) + [k + p for p in perm[1:]]
    return outer if _same(split, tuple(data[i] for i in outer)) else None


def _same(dims: Sequence[SymDim], others: Sequence[SymDim]) -> bool:
    """Equal dims: the same expressions, or the same values now (a static model's dims are
    symbols pinned to them, fresh ones at each op that does not relate them)."""
    return len(dims) == len(others) and all(
        a == b or value_of(a) is not None and value_of(a) == value_of(b) for a, b in zip(dims, others, strict=True)
    )
