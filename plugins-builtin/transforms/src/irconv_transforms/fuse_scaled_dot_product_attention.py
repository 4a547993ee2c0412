"""softmax(Q K^T * scale + mask) V -> ScaledDotProductAttention."""

from __future__ import annotations

import numpy as np
from irconv import Match, Node, OutPort, Pat, Rewriter, any_, op
from irconv_opset import Add, Divide, MatMul, Multiply, ScaledDotProductAttention, SoftMax, SoftMax_v1, Transpose

from irconv_transforms._fusion import Fusion, float_const, uniform


def _plain_matmul(node: Node) -> bool:
    return isinstance(node.op, MatMul) and not node.op.transpose_a and not node.op.transpose_b


def _keys_transposed(node: Node) -> bool:
    return isinstance(node.op, MatMul) and node.op.transpose_b and not node.op.transpose_a


def _patterns() -> tuple[Pat, ...]:
    keys_transposed = (
        op(MatMul, any_("q"), any_("k"), bind="qk", single_use=True, where=_keys_transposed),
        op(MatMul, any_("q"), any_("kt"), bind="qk", single_use=True, where=_plain_matmul),
    )
    found = []
    for raw in keys_transposed:
        scaled = (
            raw,
            op(Multiply, raw, float_const("scale"), commutative=True, single_use=True),
            op(Divide, raw, float_const("divisor"), single_use=True),
        )
        for scores in scaled:
            for masked in (scores, op(Add, scores, any_("mask"), commutative=True, single_use=True, bind="add")):
                softmax = op((SoftMax, SoftMax_v1), masked, single_use=True, bind="softmax")
                found.append(op(MatMul, softmax, any_("v"), bind="root", where=_plain_matmul))
    return tuple(found)


class FuseScaledDotProductAttention(Fusion):
    """``MatMul(SoftMax(MatMul(Q, K^T) * s [+ mask]), V)`` over the last axis, with K^T
    a ``transpose_b`` (or else K is K^T's Transpose input, re-permuted, or K^T transposed
    back), s a scalar constant (also
    as a division; 1 when absent) and an optional additive mask -> ScaledDotProductAttention
    (Q, K, V, mask, s). Q, K and V must have the same rank (3 or more)."""

    id = "fuse.scaled_dot_product_attention"
    pattern = _patterns()

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        q, v = match.port("q"), match.port("v")
        k = match.port("k") if "k" in match.nodes else match.port("kt")
        shapes = [p.data.shape for p in (q, k, v)]
        ranks = {len(s) for s in shapes if s is not None}
        if None in shapes or len(ranks) != 1 or min(ranks) < 3:
            return False
        rank = ranks.pop()
        softmax = match["softmax"].op
        if not isinstance(softmax, (SoftMax, SoftMax_v1)) or softmax.axis % rank != rank - 1:
            return False
        scale: float | None = 1.0
        if "scale" in match.nodes:
            scale = uniform(match.constant("scale"))
        elif "divisor" in match.nodes:
            divisor = uniform(match.constant("divisor"))
            scale = None if not divisor else 1.0 / divisor
        dtype = q.data.element_type
        if scale is None or not dtype.is_float:
            return False
        root = match["root"]
        if "mask" in match.nodes:
            mask = match.port("mask")
            if mask.data.shape is None or len(mask.data.shape) > rank:
                return False
        else:
            mask = rw.const(np.zeros((), dtype.numpy), like=root)
        if root.out_port(0).data.shape is None:
            return False
        if "kt" in match.nodes:
            k = _keys(rw, match.port("kt"), rank, root)
        scale_port = rw.const(np.asarray(scale, dtype.numpy), like=root)
        fused = rw.op(ScaledDotProductAttention(causal=False), q, k, v, mask, scale_port, like=root)
        if fused.data.shape != root.out_port(0).data.shape:
            rw.erase(fused.node)
            return False
        rw.replace(root, fused)
        return True


def _keys(rw: Rewriter, kt: OutPort, rank: int, like: Node) -> OutPort:
    """K from K^T: the input of a Transpose (see ``keys_of_transpose``), or K^T transposed back."""
    if isinstance(kt.node.op, Transpose) and len(kt.get_destinations()) == 1 and kt.node.has_input(1):
        value = kt.node.in_port(1).constant(shape_derived=False)
        inner = kt.node.in_port(0).get_source()
        if value is not None and value.size == rank and inner is not None:
            return keys_of_transpose(rw, inner, [int(v) % rank for v in value.reshape(-1)], like)
    return keys_of_transpose(rw, kt, list(range(rank)), like)


def keys_of_transpose(rw: Rewriter, source: OutPort, perm: list[int], like: Node) -> OutPort:
    """K where ``Transpose(source, perm)`` is K^T: ``source`` transposed by ``perm`` with its
    last two entries swapped, or ``source`` itself when that order is the identity."""
    order = [*perm[:-2], perm[-1], perm[-2]]
    if order == list(range(len(order))):
        return source
    return rw.op(Transpose(), source, rw.const(np.array(order, np.int64), like=like), like=like)
