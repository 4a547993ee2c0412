"""Wrap nodes marked channels-last in transposes, so they compute in OpenVINO's NC... form."""

from __future__ import annotations

import dataclasses

from irconv.graph import Graph, Node
from irconv import TransformContext
from irconv.plugins import Transform

from irconv_layout.options import WRAPPED_RANK
from irconv_layout.perm import add_transpose, channels_first, channels_last

#: Node.layout values this plugin understands: channels-last layouts and their rank.
CHANNELS_LAST = {"NWC": 3, "NHWC": 4, "NDHWC": 5}


class WrapMarked(Transform):
    """x -> Op[NHWC] -> y  =>  x -> Transpose(to NCHW) -> Op -> Transpose(to NHWC) -> y.

    A front end marks a node (``node.layout = "NHWC"``) whose input 0 and output 0 are
    channels-last while the op it chose follows the IR's channels-first definition; other
    inputs (weights, shapes) are already in the op's own form. Runs before shape inference.
    """

    id = "layout.wrap_marked"

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        changed = False
        for node in graph.nodes():
            for body in _bodies(node):  # loop and branch bodies compute in the same layout
                changed = self.apply(body, ctx) or changed
            rank = CHANNELS_LAST.get(node.layout or "")
            if rank is None:
                continue
            source = node.in_port(0).get_source()
            before = add_transpose(graph, source, channels_first(rank), f"{node.name}/to_channels_first")
            node.in_port(0).connect(before.out_port(0))
            after = add_transpose(graph, None, channels_last(rank), f"{node.name}/to_channels_last")
            node.out_port(0).get_connection().insert_node(after)
            node.layout = "N" + node.layout[-1] + node.layout[1:-1]  # type: ignore[index]
            graph.meta[WRAPPED_RANK] = rank
            changed = True
        return changed


def _bodies(node: Node) -> list[Graph]:
    op = node.op
    if not dataclasses.is_dataclass(op):
        return []
    return [v for f in dataclasses.fields(op) if isinstance(v := getattr(op, f.name), Graph)]
