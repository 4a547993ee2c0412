"""Wrap nodes marked channels-last in transposes, so they compute in OpenVINO's NC... form."""

from __future__ import annotations

import dataclasses

from irconv import Graph, Node, Rewriter, Transform, TransformContext
from irconv.ops import Const
from irconv_opset.lowering.layout import LayoutMark

from irconv_layout.options import WRAPPED_RANK
from irconv_layout.perm import channels_first, channels_last, transpose, transpose_after


class WrapMarked(Transform):
    """x -> Op[NHWC] -> y  =>  x -> Transpose(to NCHW) -> Op -> Transpose(to NHWC) -> y.

    A front end marks a node (``irconv_opset.lowering.layout.laid_out``: ``node.layout`` is a
    ``LayoutMark``) whose input 0 and output 0 are channels-last while the op it chose follows
    the IR's channels-first definition; other inputs (weights, shapes) are already in the op's
    own form. Runs before shape inference.
    """

    id = "layout.wrap_marked"

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        rw = Rewriter(graph)
        bodies_changed = False
        for node in graph.nodes():
            for body in _bodies(node):  # loop and branch bodies compute in the same layout
                bodies_changed = self.apply(body, ctx) or bodies_changed
            mark = LayoutMark.parse(node.layout)
            if mark is None:
                continue
            rank = mark.rank
            source = node.in_port(0).get_source()
            assert source is not None
            rw.set_input(node.in_port(0), transpose(rw, source, channels_first(rank), f"{node.name}/to_channels_first"))
            transpose_after(rw, node, channels_last(rank))
            node.layout = mark.channels_first
            graph.meta[WRAPPED_RANK] = rank
        return rw.modified or bodies_changed


def _bodies(node: Node) -> list[Graph]:
    op = node.op
    if isinstance(op, Const) or not dataclasses.is_dataclass(op):
        return []  # a constant has no body; reading a DeferredConst's value would compute it whole
    return [v for f in dataclasses.fields(op) if isinstance(v := getattr(op, f.name), Graph)]
