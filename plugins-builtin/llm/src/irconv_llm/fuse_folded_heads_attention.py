"""Attention computed with the heads folded into the batch (``bmm`` over ``[B*H, L, d]``)
-> one ScaledDotProductAttention over ``[B, H, L, d]``."""

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
from irconv.graph.symbolic import symbolic_shape

from irconv_llm._scalars import scalar_const, scalar_value

#: A mask fill at or below this is unchanged by adding an attention bias in f32 (its
#: spacing, about 1e23, is far above any bias), so where it masks, bias + fill is fill.
_MASKED = -1e30


def _swaps_last_two(node: Node) -> bool:
    """A Transpose of a 3-D tensor by the constant order ``[0, 2, 1]``."""
    order = node.in_port(1).get_source()
    value = None if order is None else order.constant(shape_derived=False)
    return value is not None and [int(v) % 3 for v in value.reshape(-1)] == [0, 2, 1]


def _patterns() -> tuple[Pat, ...]:
    from irconv_opset import Add, MatMul, Multiply, Reshape, SoftMax, SoftMax_v1, Transpose

    def keys_transposed(node: Node) -> bool:
        return isinstance(node.op, MatMul) and node.op.transpose_b and not node.op.transpose_a

    def plain(node: Node) -> bool:
        return isinstance(node.op, MatMul) and not node.op.transpose_a and not node.op.transpose_b

    keys = op(Transpose, any_("k"), bind="k_t", single_use=True, where=_swaps_last_two)
    found = []
    for raw in (
        op(MatMul, any_("q"), any_("k"), bind="qk", single_use=True, where=keys_transposed),
        op(MatMul, any_("q"), keys, bind="qk", single_use=True, where=plain),
    ):
        for scaled in (op(Multiply, raw, scalar_const("scale"), commutative=True, single_use=True), raw):
            for biased in (op(Add, scaled, any_("bias"), commutative=True, single_use=True), scaled):
                unfolded = op(Reshape, biased, any_(), bind="unfold", single_use=True)
                for masked in (op(Add, unfolded, any_("mask"), commutative=True, single_use=True), unfolded):
                    softmax = op((SoftMax, SoftMax_v1), masked, bind="softmax", single_use=True)
                    folded = op(Reshape, softmax, any_(), bind="fold", single_use=True)
                    found.append(op(MatMul, folded, any_("v"), bind="root", where=plain))
    return tuple(found)


class FuseFoldedHeadsAttention(PatternRewrite):
    """``MatMul(R(SoftMax(U(MatMul(Q', K'ᵀ) * s [+ bias']) [+ mask])), V')`` -> a Reshape of
    ``ScaledDotProductAttention(Q, K, V, bias + mask, s)``.

    Q', K', V' are Reshapes of Q, K, V ``[B, H, n, d]`` to ``[B*H, n, d]``; U unfolds the
    scores ``[B*H, L, S]`` to ``[B, H, L, S]`` and R folds them back; ``bias'`` (``[B*H, l, S]``
    or broadcast along the first axis) is reshaped to ``[B, H, l, S]``. This is Bloom's
    attention (``baddbmm`` of its ALiBi bias, then the mask, in four dimensions). As one op,
    OpenVINO's CPU plugin runs it with its fused kernel, and OpenVINO's SDPA-to-PagedAttention
    rewrite (GenAI's default backend) can take it: with the mask ``Select(c, 0, fill)`` of a
    fill that absorbs any bias, the mask becomes ``Select(not c, fill, bias)``, the form that
    rewrite reads ALiBi slopes from (``llm.alibi_bias_form``).
    """

    id = "llm.fuse_folded_heads_attention"
    run_after = ("fuse.scaled_dot_product_attention",)
    run_before = ("fuse.merge_common_subexpressions",)  # its pattern reads each branch unshared
    pattern = _patterns()

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [self], frozen=ctx.is_frozen) > 0

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset import Reshape, ScaledDotProductAttention, SoftMax, SoftMax_v1

        heads = [_unfolded(match.port(name)) for name in ("q", "k", "v")]
        if any(port is None for port in heads):
            return False
        q, k, v = heads
        assert q is not None and k is not None and v is not None
        shapes = [symbolic_shape(port) for port in (q, k, v)]
        assert all(shape is not None for shape in shapes)  # _unfolded
        batch, count = shapes[0][0], shapes[0][1]  # type: ignore[index]
        if not isinstance(count, int) or any(s[0] != batch or s[1] != count for s in shapes):  # type: ignore[index]
            return False
        softmax, root = match["softmax"], match["root"]
        if not _splits_heads(match["unfold"], (batch, count, shapes[0][2], shapes[1][2])):  # type: ignore[index]
            return False
        merged, folded = symbolic_shape(match.port("q")), symbolic_shape(match["fold"].out_port(0))
        if merged is None or folded is None or len(folded) != 3 or folded[:2] != merged[:2]:
            return False  # softmax [B, H, L, S] -> [B*H, L, S]
        rank = len(softmax.out_port(0).data.shape or ())
        if not isinstance(softmax.op, (SoftMax, SoftMax_v1)) or rank != 4 or softmax.op.axis % 4 != 3:
            return False
        dtype = q.data.element_type
        if not dtype.is_float:
            return False
        scale = 1.0 if "scale" not in match.ports else scalar_value(match.port("scale"))
        if not _fits_mask(match):
            return False
        mask = _mask(rw, match, count, root)
        if mask is None:
            mask = rw.const(np.zeros((), dtype.numpy), like=root)
        fused = rw.op(
            ScaledDotProductAttention(causal=False),
            q,
            k,
            v,
            mask,
            rw.const(np.asarray(scale, dtype.numpy), like=root),
            like=root,
        )
        unfold = _unfolding_reader(root, symbolic_shape(fused))
        if unfold is not None:  # the model's own [B*H, L, d] -> [B, H, L, d]: the attention's output
            rw.replace(unfold, fused)  # and root, left unread
        else:
            rw.replace(
                root, rw.op(Reshape(special_zero=False), fused, _shape_with(rw, fused, [-1], 2, root), like=root)
            )
        return True


def _unfolded(port: OutPort) -> OutPort | None:
    """The ``[B, H, n, d]`` tensor ``port`` ``[B*H, n, d]`` is a Reshape of."""
    from irconv_opset import Reshape

    if not isinstance(port.node.op, Reshape):
        return None
    source = port.node.in_port(0).get_source()
    inner, outer = symbolic_shape(source), symbolic_shape(port)
    if source is None or inner is None or outer is None or len(inner) != 4 or len(outer) != 3 or inner[2:] != outer[1:]:
        return None
    return source


def _unfolding_reader(root: Node, shape: tuple[object, ...] | None) -> Node | None:
    """The one reader of ``root``'s output, a Reshape to ``shape`` (the symbols prove it)."""
    from irconv_opset import Reshape

    readers = root.out_port(0).get_destinations()
    if shape is None or len(readers) != 1 or not isinstance(readers[0].node.op, Reshape) or readers[0].idx != 0:
        return None
    reader = readers[0].node
    return reader if symbolic_shape(reader.out_port(0)) == shape else None


def _splits_heads(reshape: Node, dims: tuple[object, ...]) -> bool:
    """Whether ``reshape`` takes the scores ``[B*H, L, S]`` to ``dims`` ``[B, H, L, S]``: its
    target holds B, H and L, and S or -1."""
    from irconv_opset import Reshape
    from irconv_opset.partial import symbolic_elements

    target = symbolic_elements(reshape.in_port(1).get_source())
    if not isinstance(reshape.op, Reshape) or target is None or len(target) != 4:
        return False
    return list(target[:3]) == list(dims[:3]) and target[3] in (-1, dims[3])


def _fits_mask(match: Match) -> bool:
    """Whether the mask (at most 4-D) and the bias (``[B*H, l, S]`` or ``[1, l, S]``) can be
    added in four dimensions."""
    if "mask" in match.ports:
        shape = match.port("mask").data.shape
        if shape is None or len(shape) > 4:
            return False
    if "bias" not in match.ports:
        return True
    bias, scores = symbolic_shape(match.port("bias")), symbolic_shape(match["qk"].out_port(0))
    return bias is not None and scores is not None and len(bias) == 3 and bias[0] in (1, scores[0])


def _mask(rw: Rewriter, match: Match, heads: int, like: Node) -> OutPort | None:
    """The attention's additive mask in four dimensions (see ``_fits_mask``): the bias
    unfolded to ``[B, H, l, S]`` plus the mask (None: neither)."""
    from irconv_opset import Add, LogicalNot, Reshape, Select

    mask = match.port("mask") if "mask" in match.ports else None
    if "bias" not in match.ports:
        return mask
    bias = match.port("bias")
    if symbolic_shape(bias)[0] != 1:  # type: ignore[index]  # _fits_mask
        bias = rw.op(Reshape(special_zero=False), bias, _shape_with(rw, bias, [-1, heads], 1, like), like=like)
    if mask is None:
        return bias
    fill = _absorbing_fill(mask.node)
    if fill is not None:
        condition = mask.node.in_port(0).get_source()
        assert condition is not None
        return rw.op(Select(), rw.op(LogicalNot(), condition, like=like), fill, bias, like=like)
    return rw.op(Add(), bias, mask, like=like)


def _absorbing_fill(node: Node) -> OutPort | None:
    """``fill`` of a ``Select(c, 0, fill)`` whose fill is at or below ``_MASKED``."""
    from irconv_opset import Select

    if not isinstance(node.op, Select):
        return None
    zero, fill = (node.in_port(i).get_source() for i in (1, 2))
    zero_value = None if zero is None else zero.constant(shape_derived=False)
    fill_value = None if fill is None else fill.constant(shape_derived=False)
    if zero_value is None or fill_value is None or zero_value.dtype.kind != "f" or fill_value.dtype.kind != "f":
        return None
    if np.any(zero_value != 0) or not np.all(fill_value <= _MASKED):
        return None
    return fill


def _shape_with(rw: Rewriter, port: OutPort, lead: list[int], start: int, like: Node) -> OutPort:
    """``lead`` followed by ``port``'s dimensions from ``start`` on, as a shape tensor."""
    from irconv_opset import Concat, Gather, ShapeOf

    shape = port.data.shape
    assert shape is not None  # the rewrite checked it
    rank = len(shape)
    dims = rw.op(ShapeOf(), port, like=like)
    tail = rw.op(
        Gather(),
        dims,
        rw.const(np.arange(start, rank, dtype=np.int64), like=like),
        rw.const(np.array(0, np.int64), like=like),
        like=like,
    )
    return rw.op(Concat(axis=0), rw.const(np.array(lead, np.int64), like=like), tail, like=like)
