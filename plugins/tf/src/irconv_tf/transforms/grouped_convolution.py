"""Conv2D with fewer filter input channels than data channels is a grouped convolution."""

from __future__ import annotations

import dataclasses

from irconv import Rewriter, TransformContext
from irconv.graph import Graph, Node
from irconv.plugins import Transform


class GroupedConvolution(Transform):
    """Convolution(x[N,C,..], w[O,C/G,..]) -> GroupConvolution(x, w as [G,O/G,C/G,..]).

    TensorFlow's Conv2D expresses groups only through the filter shape, so the data's
    channel count (known after shape inference) decides. Filters must be constant.
    """

    id = "tf.grouped_convolution"
    run_before = ("layout.sink_transposes",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return graph.framework == "tf" and bool(graph.by_type("Convolution"))

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        rewriter = Rewriter(graph)
        for node in graph.by_type("Convolution"):
            if not ctx.is_frozen(node):
                _regroup(rewriter, node)
        return rewriter.modified


def _regroup(rewriter: Rewriter, node: Node) -> None:
    from irconv_opset import GroupConvolution

    data = node.in_port(0).data.get_shape()
    filters = node.in_port(1).constant(shape_derived=False)
    source = node.in_port(0).get_source()
    if data is None or len(data) < 3 or data[1] is None or filters is None or source is None:
        return
    channels, per_group = data[1], filters.shape[1]
    if channels == per_group or per_group == 0 or channels % per_group:
        return
    groups = channels // per_group
    grouped = filters.reshape(groups, filters.shape[0] // groups, *filters.shape[1:])
    weights = rewriter.const(grouped, like=node, name=f"{node.name}/grouped_filters")
    fields = {f.name: getattr(node.op, f.name) for f in dataclasses.fields(node.op)}
    grouped_node = rewriter.insert(GroupConvolution(**fields), [source, weights], like=node)
    grouped_node.layout = node.layout
    rewriter.replace(node, grouped_node.out_port(0))
