"""Attention as PyTorch's ONNX exporter writes ``scaled_dot_product_attention`` -> one op."""

from __future__ import annotations

import numpy as np
from irconv import (
    Graph,
    Match,
    Node,
    OutPort,
    Pat,
    PatternRewrite,
    Rewriter,
    TransformContext,
    any_,
    op,
    rewrite_greedily,
)

from irconv_llm._scalars import scalar_const, scalar_value


def _permutation(node: Node) -> list[int] | None:
    """A Transpose's constant order, normalised (None when not a constant permutation)."""
    perm = node.in_port(1).get_source()
    value = perm.constant(shape_derived=False) if perm is not None else None
    if value is None or value.ndim != 1 or value.size < 2:
        return None
    order = [int(v) % value.size for v in value]
    return order if sorted(order) == list(range(value.size)) else None


def _is_permutation(node: Node) -> bool:
    return _permutation(node) is not None


def _patterns() -> tuple[Pat, ...]:
    from irconv_opset import Add, IsNaN, MatMul, Multiply, Select, SoftMax, SoftMax_v1, Transpose

    def plain(node: Node) -> bool:
        return isinstance(node.op, MatMul) and not node.op.transpose_a and not node.op.transpose_b

    query = op(Multiply, any_("q"), scalar_const("q_scale"), commutative=True, single_use=True)
    keys_t = (
        op(
            Multiply,
            op(Transpose, any_("k"), single_use=True, where=_is_permutation, bind="k_t"),
            scalar_const("k_scale"),
            commutative=True,
            single_use=True,
        ),
        op(
            Transpose,
            op(Multiply, any_("k"), scalar_const("k_scale"), commutative=True, single_use=True),
            single_use=True,
            where=_is_permutation,
            bind="k_t",
        ),
    )
    found = []
    for k_t in keys_t:
        scores = op(MatMul, query, k_t, single_use=True, where=plain)
        for masked in (op(Add, scores, any_("mask"), single_use=True), scores):
            softmax = op((SoftMax, SoftMax_v1), masked, bind="softmax")
            nan_free = op(Select, op(IsNaN, softmax, single_use=True), scalar_const("zero"), softmax, single_use=True)
            for weights in (nan_free, softmax):
                found.append(op(MatMul, weights, any_("v"), bind="root", where=plain))
    return tuple(found)


class FuseSplitScaleAttention(PatternRewrite):
    """``MatMul(P, V)`` with ``P = SoftMax(MatMul(Q * a, Kᵀ * b) [+ mask])`` over the last
    axis, optionally ``Select(IsNaN(P), 0, P)``, Kᵀ a Transpose of K (before or after its
    scaling) -> ScaledDotProductAttention(Q, K, V, mask, a * b). K is the Transpose's input
    when it swaps the last two axes, else that input transposed to Kᵀ's order with its last
    two axes swapped (an exporter's ``k.view(b, s, h, d).permute(0, 2, 3, 1)``).

    This is PyTorch's ONNX form of ``scaled_dot_product_attention`` (the scale split as
    ``sqrt(scale)`` on each side for range, NaN rows of fully masked queries zeroed). As one
    op, OpenVINO's CPU plugin runs attention with its fused kernel and, in a stateful model,
    reads the KV cache state in place. Grouped-query heads stay as the model repeats them.
    """

    id = "llm.fuse_split_scale_attention"
    run_after = ("fuse.scaled_dot_product_attention",)
    run_before = ("fuse.merge_common_subexpressions",)  # its pattern reads each branch unshared
    pattern = _patterns()

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [self], frozen=ctx.is_frozen) > 0

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset import ScaledDotProductAttention, SoftMax, SoftMax_v1
        from irconv_transforms.fuse_scaled_dot_product_attention import keys_of_transpose

        q, k, v, root = match.port("q"), match.port("k"), match.port("v"), match["root"]
        shapes = [port.data.shape for port in (q, k, v)]
        ranks = {len(s) for s in shapes if s is not None}
        if any(shape is None for shape in shapes) or len(ranks) != 1:
            return False
        (rank,) = ranks
        softmax = match["softmax"].op
        if rank < 3 or not isinstance(softmax, (SoftMax, SoftMax_v1)) or softmax.axis % rank != rank - 1:
            return False
        if "zero" in match.nodes and float(scalar_value(match.port("zero"))) != 0.0:
            return False
        dtype = q.data.element_type
        if not dtype.is_float:
            return False
        scale = float(scalar_value(match.port("q_scale"))) * float(scalar_value(match.port("k_scale")))
        mask: OutPort = match.port("mask") if "mask" in match.ports else rw.const(np.zeros((), dtype.numpy), like=root)
        if mask.data.shape is not None and len(mask.data.shape) > rank:
            return False
        order = _permutation(match["k_t"])
        assert order is not None  # the pattern's condition
        k = keys_of_transpose(rw, k, order, root)
        scale_port = rw.const(np.asarray(scale, dtype.numpy), like=root)
        fused = rw.op(ScaledDotProductAttention(causal=False), q, k, v, mask, scale_port, like=root)
        rw.replace(root, fused)
        return True
