"""The erf form of GELU, x * 0.5 * (1 + erf(x / sqrt(2))), -> Gelu(x, mode=erf)."""

from __future__ import annotations

import math

import numpy as np
from irconv.graph import Graph, Match, Node, Pat, any_, const, find_matches, op
from irconv import TransformContext
from irconv.plugins import Transform


def _scalar(value: float) -> Pat:
    """A constant whose every element is ``value`` (to f32 precision)."""

    def close(node: Node) -> bool:
        data = node.op.value  # type: ignore[attr-defined]
        return bool(data.size) and data.dtype.kind == "f" and np.allclose(data, value, rtol=1e-4, atol=0)

    return const(where=close)


def _patterns() -> list[Pat]:
    x = any_("x")
    scaled = (
        op("Divide", x, _scalar(math.sqrt(2.0))),
        op("Multiply", x, _scalar(1 / math.sqrt(2.0)), commutative=True),
    )
    patterns = []
    for inner in scaled:
        one_plus_erf = op("Add", op("Erf", inner, single_use=True), _scalar(1.0), single_use=True, commutative=True)
        # (x * 0.5) * (1 + erf)
        patterns.append(
            op("Multiply", op("Multiply", x, _scalar(0.5), single_use=True, commutative=True), one_plus_erf,
               bind="root", commutative=True)
        )
        # x * ((1 + erf) * 0.5)
        patterns.append(
            op("Multiply", x, op("Multiply", one_plus_erf, _scalar(0.5), single_use=True, commutative=True),
               bind="root", commutative=True)
        )
        # (x * (1 + erf)) * 0.5
        patterns.append(
            op("Multiply", op("Multiply", x, one_plus_erf, single_use=True, commutative=True), _scalar(0.5),
               bind="root", commutative=True)
        )
    return patterns


class FuseGeluErf(Transform):
    """x * 0.5 * (1 + erf(x / sqrt 2)), in the operand orders exporters write -> Gelu(erf)."""

    id = "fuse.gelu_erf"

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        fused = 0
        for pattern in _patterns():
            for match in find_matches(graph, pattern):
                self._replace(graph, match)
                fused += 1
        if fused:
            graph.clean_up()  # the Erf/Add/Multiply chains left without users
        return fused > 0

    @staticmethod
    def _replace(graph: Graph, match: Match) -> None:
        from irconv_opset import Gelu

        root = match["root"]
        gelu = graph.add_node(Gelu(approximation_mode="erf"), origin=root.origin, inputs=[match.port("x")])
        root.out_port(0).get_connection().set_source(gelu.out_port(0))
        root.in_port(0).disconnect()
        root.in_port(1).disconnect()
        graph.remove_node(root)
        graph.rename(gelu, root.name)
