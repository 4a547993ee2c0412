"""Conv2D with fewer filter input channels than data channels is a grouped convolution."""

from __future__ import annotations

import dataclasses

import numpy as np
from irconv.graph import Graph, Node
from irconv.ops import Const
from irconv import TransformContext
from irconv.pipeline.infer import infer_node
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
        changed = False
        for node in graph.by_type("Convolution"):
            changed = _regroup(graph, node) or changed
        return changed


def _regroup(graph: Graph, node: Node) -> bool:
    from irconv_opset import GroupConvolution

    data = node.in_port(0).data.get_shape()
    filters = node.input_value(1)
    if data is None or len(data) < 3 or data[1] is None or filters is None:
        return False
    channels, per_group = data[1], filters.shape[1]
    if channels == per_group or per_group == 0 or channels % per_group:
        return False
    groups = channels // per_group
    grouped = np.ascontiguousarray(filters.reshape(groups, filters.shape[0] // groups, *filters.shape[1:]))
    weights = graph.add_node(Const(grouped), f"{node.name}/grouped_filters")
    infer_node(weights)
    fields = {f.name: getattr(node.op, f.name) for f in dataclasses.fields(node.op)}
    node.op = GroupConvolution(**fields)
    node.in_port(1).connect(weights.out_port(0))
    return True
