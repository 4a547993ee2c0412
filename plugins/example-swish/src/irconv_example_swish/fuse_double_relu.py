"""ReLU(ReLU(x)) -> ReLU(x)."""

from __future__ import annotations

from irconv.graph import Graph, any_, find_matches, op
from irconv import TransformContext
from irconv.plugins import Transform

PATTERN = op("ReLU", op("ReLU", any_("x"), bind="inner"), bind="outer")


class FuseDoubleRelu(Transform):
    """ReLU(ReLU(x)) -> ReLU(x): the outer ReLU changes nothing."""

    id = "example.fuse_double_relu"
    run_after = ("fuse.swish",)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        changed = False
        for match in find_matches(graph, PATTERN):
            outer = match["outer"]
            outer.out_port(0).get_connection().set_source(match["inner"].out_port(0))
            outer.in_port(0).disconnect()
            graph.remove_node(outer)
            changed = True
        return changed
