"""``--layout-inputs nchw``: the IR takes channels-first inputs instead of the model's own layout."""

from __future__ import annotations

from irconv.graph import Graph
from irconv.ops import Parameter
from irconv import TransformContext
from irconv.plugins import Transform

from irconv_layout.perm import add_transpose, channels_first, channels_last, refresh
from irconv_layout.options import LAYOUT_INPUTS, WRAPPED_RANK


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
        changed = False
        for node in graph.parameters():
            op = node.op
            assert isinstance(op, Parameter)
            if op.shape is None or len(op.shape) != rank:
                continue
            op.shape = tuple(op.shape[p] for p in channels_first(rank))
            port = node.out_port(0)
            names = list(port.data.names)
            back = add_transpose(graph, None, channels_last(rank), f"{node.name}/to_model_layout")
            port.get_connection().insert_node(back)
            back.out_port(0).data.names.clear()
            for name in names:
                port.data.add_name(name)
            refresh(node, back)
            changed = True
        return changed
