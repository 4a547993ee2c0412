"""Copying a body graph into another graph: a TF While condition used twice, the chosen
branch of an If whose condition is decided."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from irconv.graph import Graph, OutPort
from irconv.ops import Const, Parameter, Result


def inline_graph(source: Graph, target: Graph, inputs: Sequence[OutPort | None], prefix: str) -> list[OutPort]:
    """Copy ``source`` into ``target`` with its Parameters (in order) replaced by ``inputs``
    (None for a parameter nothing in ``source`` reads).

    Returns the ports that feed ``source``'s Results, in order.
    """
    ports: dict[tuple[int, int], OutPort] = {}
    for parameter, port in zip(source.parameters(), inputs, strict=True):
        if port is not None:
            ports[(parameter.id, 0)] = port
    for node in source.topological_order():
        if isinstance(node.op, (Parameter, Result)):
            continue
        sources = []
        for in_port in node.in_ports():
            src = in_port.get_source()
            sources.append(None if src is None else ports[(src.node.id, src.idx)])
        op = node.op if isinstance(node.op, Const) else copy.deepcopy(node.op)
        new = target.add_node(op, f"{prefix}/{node.name}", sources, origin=node.origin)
        new.layout = node.layout
        for idx in range(node.num_outputs()):
            ports[(node.id, idx)] = new.out_port(idx)
    outputs = []
    for result in source.results():
        src = result.in_port(0).get_source()
        assert src is not None
        outputs.append(ports[(src.node.id, src.idx)])
    return outputs
