"""Constant folding: nodes whose outputs partial inference computed become Consts."""

from __future__ import annotations

from irconv.graph import Graph, Node
from irconv.ops import Const, Parameter, Result


def fold_constants(graph: Graph, *, static_shape: bool) -> int:
    """Replace every foldable node by Const nodes; returns how many nodes were folded.

    Values derived from ShapeOf stay computed (so later inference can use them) but
    are not folded unless ``static_shape``: folding them would pin the model's shape.
    """
    folded = 0
    for node in graph.topological_order():
        if node not in graph or not _foldable(node, static_shape):
            continue
        made: list[tuple[Node, str]] = []
        for port in node.out_ports():
            if not port.get_destinations() and not port.data.names:
                continue
            assert port.data.value is not None
            suffix = "" if node.num_outputs() == 1 else f":{port.idx}"
            const = graph.add_node(Const(port.data.value), origin=node.origin)
            const.out_port(0).data.set_value(port.data.value)
            port.get_connection().set_source(const.out_port(0))
            made.append((const, f"{node.name}{suffix}"))
        graph.remove_node(node)
        for const, name in made:  # the Consts take the folded node's name
            graph.rename(const, name)
        folded += 1
    if folded:
        graph.clean_up()
    return folded


def _foldable(node: Node, static_shape: bool) -> bool:
    if isinstance(node.op, (Const, Parameter, Result)):
        return False
    outputs = node.out_ports()
    if not outputs:
        return False
    for port in outputs:
        data = port.data
        if data.value is None:
            return False
        if data.shape_derived and not static_shape:
            return False
    return True
