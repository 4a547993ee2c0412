"""A MatMul that flattens leading dims only to restore them is a MatMul on the original tensor.

Reshape(MatMul(Reshape(x, [P, C]), W), [*lead, C']) -> MatMul(x, W) when x is [*lead, C],
P = prod(lead) and W is a constant matrix: MatMul broadcasts leading dims itself. Dense
layers on images (TensorFlow's Tensordot) are written the first way; the second lets a
channels-last transpose sink through the layer.
"""

from __future__ import annotations

import math

from irconv import Graph, Match, Rewriter, Transform, TransformContext, any_, const, op, rewrite_greedily
from irconv_opset import MatMul, Reshape

from irconv_layout.options import DISABLE_NHWC_TO_NCHW

PATTERN = op(
    Reshape,
    op(MatMul, op(Reshape, any_("x"), any_(), bind="flat", single_use=True), const("w"), bind="matmul",
       single_use=True),
    any_(),
    bind="restore",
)


class MatMulLeadingDims(Transform):
    """Drop the Reshape pair around a MatMul that only flattens and restores leading dims."""

    id = "layout.matmul_leading_dims"
    run_before = ("layout.sink_transposes",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return not ctx.options.get(DISABLE_NHWC_TO_NCHW) and graph.has_type(MatMul.type)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [_Collapse()], frozen=ctx.is_frozen) > 0


class _Collapse:
    roots = (PATTERN,)

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        matmul = match.op("matmul", MatMul)
        if matmul.transpose_a or match.port("w").data.get_rank() != 2:
            return False
        x = match.port("x").data.get_shape()
        flat = match.port("flat").data.get_shape()
        restored = match["restore"].out_port(0).data.get_shape()
        out = match["matmul"].out_port(0).data.get_shape()
        if x is None or flat is None or restored is None or out is None or len(x) < 3:
            return False
        dims = [d for d in x if d is not None]
        lead = tuple(dims[:-1])
        if len(dims) != len(x) or flat != (math.prod(lead), dims[-1]):
            return False
        if restored != (*lead, out[-1]):
            return False
        collapsed = MatMul(transpose_b=matmul.transpose_b)
        name = match["matmul"].name + "/on_leading_dims"
        rw.replace(match["restore"], rw.op(collapsed, match.port("x"), match.port("w"), name=name))
        return True
