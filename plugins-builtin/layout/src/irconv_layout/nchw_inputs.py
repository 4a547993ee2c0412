"""``--layout-inputs nchw``: the IR takes channels-first inputs instead of the model's own layout."""

from __future__ import annotations

from irconv import Graph, Parameter, Rewriter, Transform, TransformContext

from irconv_layout.options import LAYOUT_INPUTS, WRAPPED_RANK
from irconv_layout.perm import channels_first, channels_last, transpose_after


class NchwInputs(Transform):
    """Parameter[N,H,W,C] -> ...  =>  Parameter[N,C,H,W] -> Transpose(to NHWC) -> ...

    Applies to inputs of the channels-last rank in graphs where nodes were wrapped; the
    new transpose then cancels against the first convolution's.
    """

    id = "layout.nchw_inputs"
    run_before = ("layout.sink_transposes",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return ctx.options.get(LAYOUT_INPUTS) == "nchw" and WRAPPED_RANK in graph.meta

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        rank = graph.meta[WRAPPED_RANK]
        rw = Rewriter(graph)
        for node in graph.parameters():
            op = node.op
            assert isinstance(op, Parameter)
            if op.shape is None or len(op.shape) != rank:
                continue
            transpose_after(rw, node, channels_last(rank), move_names=False)
            rw.replace_op(node, Parameter(tuple(op.shape[p] for p in channels_first(rank)), op.element_type))
        return rw.modified
