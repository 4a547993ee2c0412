"""Rotary embeddings' ``rotate_half`` written the way OpenVINO's RoPE fusion reads it."""

from __future__ import annotations

import numpy as np
from irconv import Graph, Match, Node, PatternRewrite, Rewriter, TransformContext, any_, op, rewrite_greedily


def _ints(node: Node, index: int) -> list[int] | None:
    source = node.in_port(index).get_source() if index < node.num_inputs() else None
    value = source.constant(shape_derived=False) if source is not None else None
    if value is None or value.dtype.kind not in "iu":
        return None
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _last_axis_slice(node: Node) -> tuple[int, int] | None:
    """(start, stop) of a Slice of one axis, the last, with step 1; None for another Slice."""
    source = node.in_port(0).get_source()
    shape = source.data.shape if source is not None else None
    start, stop, step, axes = (_ints(node, i) for i in (1, 2, 3, 4))
    if shape is None or start is None or stop is None or step != [1] or axes is None:
        return None
    if len(start) != 1 or len(stop) != 1 or len(axes) != 1 or axes[0] % len(shape) != len(shape) - 1:
        return None
    return start[0], stop[0]


class RotateHalfForm(PatternRewrite):
    """``Concat(Negative(x[..., h:]), x[..., :h])`` over the last axis (``rotate_half`` of the
    rotary position embedding, as transformers writes it for Llama, Qwen, Mistral, Phi-3,
    GPT-NeoX, ...) -> ``Concat(Multiply(x[..., h:], -1), x[..., :h], axis=-1)``.

    Same values; this is the form OpenVINO's ``RoPEFusion`` passes match (the negation as a
    Multiply by -1, the Concat's axis spelled -1), so its CPU and GPU plugins run the whole
    ``x * cos + rotate_half(x) * sin`` as one RoPE kernel instead of six ops per head tensor.
    """

    id = "llm.rotate_half_form"
    pattern = op(
        "Concat",
        op("Negative", op("Slice", any_("x"), bind="high"), bind="negative", single_use=True),
        op("Slice", any_("x"), bind="low"),
        bind="root",
    )

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [self], frozen=ctx.is_frozen) > 0

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset import Concat, Multiply

        root, x = match["root"], match.port("x")
        shape, dtype = x.data.shape, x.data.element_type
        if root.num_inputs() != 2 or shape is None or not dtype.is_float:
            return False
        rank = len(shape)
        if not isinstance(root.op, Concat):
            return False
        axis = root.op.axis
        if axis == -1 or axis % rank != rank - 1:
            return False  # spelled -1 already, or another axis
        high, low = _last_axis_slice(match["high"]), _last_axis_slice(match["low"])
        half = low[1] if low is not None else 0
        if high is None or low is None or low[0] != 0 or high[0] != half or half <= 0 or shape[-1] != 2 * half:
            return False
        if high[1] < shape[-1]:
            return False  # [-x[h:s], x[:h]] with s short of the end is no rotation
        minus_one = rw.const(np.asarray(-1, dtype.numpy), like=match["negative"])
        negated = rw.op(Multiply(), match["high"].out_port(0), minus_one, like=match["negative"])
        rw.replace(root, rw.op(Concat(axis=-1), negated, match["low"].out_port(0), like=root))
        return True
