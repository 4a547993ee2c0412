"""Multiply(x, Sigmoid(x)) -> Swish(x)."""

from __future__ import annotations

from irconv.graph import Graph, any_, find_matches, op
from irconv import TransformContext
from irconv.plugins import Transform

_X = any_("x")
PATTERN = op("Multiply", _X, op("Sigmoid", _X, bind="sigmoid", single_use=True), bind="mul", commutative=True)


class FuseSwish(Transform):
    """Multiply(x, Sigmoid(x)) -> Swish(x): one op instead of two, as TF/Keras write swish."""

    id = "fuse.swish"

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        from irconv_opset import Swish

        fused = 0
        for match in find_matches(graph, PATTERN):
            mul = match["mul"]
            swish = graph.add_node(Swish(), origin=mul.origin, inputs=[match.port("x")])
            mul.out_port(0).get_connection().set_source(swish.out_port(0))
            graph.remove_nodes([mul, match["sigmoid"]])
            graph.rename(swish, mul.name)
            fused += 1
        return fused > 0
