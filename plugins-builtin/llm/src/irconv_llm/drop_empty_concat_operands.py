"""Concat operands of static length 0 along the axis are dropped; a Concat left with one
operand is that operand."""

from __future__ import annotations

from irconv import Match, Node, PatternRewrite, Rewriter, op
from irconv_opset import Concat


def _empty_along(node: Node, port_index: int, axis: int) -> bool:
    source = node.in_port(port_index).get_source()
    shape = source.data.shape if source is not None else None
    return shape is not None and len(shape) > axis and shape[axis] == 0


class DropEmptyConcatOperands(PatternRewrite):
    """``Concat(a, empty, b) -> Concat(a, b)`` and ``Concat(a) -> a``, where ``empty`` has a
    static length 0 along the axis: it adds nothing to the result.

    A KV cache that starts empty concatenates its past with an empty tensor first
    (transformers' ``DynamicCache`` does): without this, the present output is a Concat of
    a Concat of the past, and ``--stateful`` cannot pair the two."""

    id = "llm.drop_empty_concat_operands"
    run_before = ("llm.fuse_split_scale_attention",)
    pattern = op(Concat, bind="concat")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        node = match["concat"]
        concat = match.op("concat", Concat)
        shape = node.out_port(0).data.shape
        if shape is None:
            return False
        axis = concat.axis % len(shape) if len(shape) else 0
        kept = [i for i in range(node.num_inputs()) if not _empty_along(node, i, axis)]
        if len(kept) == node.num_inputs() and len(kept) != 1 or not kept:
            return False
        sources = [node.in_port(i).get_source() for i in kept]
        if any(s is None for s in sources):
            return False
        if len(sources) == 1:
            only = sources[0]
            assert only is not None
            if only.data.element_type != node.out_port(0).data.element_type:
                return False
            rw.replace(node, only)
        else:
            rw.replace(node, rw.op(Concat(axis=concat.axis), *sources, like=node))
        return True
