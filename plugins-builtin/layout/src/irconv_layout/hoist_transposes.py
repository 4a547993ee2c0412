"""Move transposes that feed channels-first ops up towards the inputs, through agnostic ops.

``T(f(x))`` -> ``f(T(x))`` when ``f`` (element-wise unary, or Pad with constant pads) feeds
only ``T``: a channels-last model that pads its input before the first convolution then
keeps the only transpose right after the Parameter, at the model boundary.
"""

from __future__ import annotations

import numpy as np
from irconv.graph import Graph, Node
from irconv import TransformContext
from irconv.plugins import Transform

from irconv_layout.options import DISABLE_NHWC_TO_NCHW

from irconv_layout.perm import add_const, add_transpose, refresh, transpose_perm
from irconv_layout.sink_transposes import UNARY


class HoistTransposes(Transform):
    """Hoist constant transposes above single-use element-wise ops and constant pads."""

    id = "layout.hoist_transposes"
    run_after = ("layout.sink_transposes",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return not ctx.options.get(DISABLE_NHWC_TO_NCHW) and bool(graph.by_type("Transpose"))

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        changed = False
        worklist = graph.by_type("Transpose")
        while worklist:
            node = worklist.pop()
            if node not in graph:
                continue
            new = _hoist(graph, node)
            if new is not None:
                changed = True
                worklist.append(new)
        if changed:
            graph.clean_up()
        return changed


def _hoist(graph: Graph, node: Node) -> Node | None:
    perm = transpose_perm(node)
    source = node.in_port(0).get_source()
    if perm is None or source is None:
        return None
    producer = source.node
    if producer.num_outputs() != 1 or len(source.get_destinations()) != 1 or source.data.names:
        return None
    if producer.type == "Pad":
        begin, end = producer.input_value(1), producer.input_value(2)
        if begin is None or end is None or np.asarray(begin).size != len(perm):
            return None
    elif producer.type not in UNARY:
        return None
    x = producer.in_port(0).get_source()
    assert x is not None
    new = add_transpose(graph, x, perm, f"{producer.name}/transposed_input")
    producer.in_port(0).connect(new.out_port(0))
    if producer.type == "Pad":
        order = list(perm)
        producer.in_port(1).connect(add_const(graph, np.asarray(begin)[order], f"{producer.name}/pads_begin"))
        producer.in_port(2).connect(add_const(graph, np.asarray(end)[order], f"{producer.name}/pads_end"))
    node.out_port(0).get_connection().set_source(producer.out_port(0))
    node.in_port(0).disconnect()
    perm_node = node.in_port(1).get_source()
    node.in_port(1).disconnect()
    graph.remove_node(node)
    if perm_node is not None and not perm_node.node.users():
        graph.remove_node(perm_node.node)
    refresh(new, producer)
    return new
