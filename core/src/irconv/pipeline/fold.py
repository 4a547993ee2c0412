"""Constant folding: nodes whose outputs partial inference computed become Consts."""

from __future__ import annotations

from irconv.graph import Graph, Node
from irconv.graph.budget import BudgetLedger, ValueBudget, ledger_for
from irconv.ops import Const, Parameter, Result


def fold_constants(graph: Graph, *, static_shape: bool, budget: ValueBudget | None = None) -> int:
    """Replace every foldable node by Const nodes; returns how many nodes were folded.

    Values derived from ShapeOf stay computed (so later inference can use them) but
    are not folded unless ``static_shape``: folding them would pin the model's shape.
    ``budget`` (default: the graph's, see ``irconv.graph.budget``) bounds each folded
    Const and their sum: a node over budget stays an operation, so a model cannot make
    the IR's weights file explode (a small ``Tile`` of a big constant, say).
    """
    ledger = BudgetLedger(budget) if budget is not None else ledger_for(graph).fresh()
    folded = 0
    for node in graph.topological_order():
        if node not in graph or not _foldable(node, static_shape):
            continue
        if not ledger.allows(_new_bytes(node)):
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


def _new_bytes(node: Node) -> int:
    """Bytes the Consts replacing ``node`` would add to the weights."""
    total = 0
    for port in node.out_ports():
        if port.get_destinations() or port.data.names:
            value = port.data.value
            total += 0 if value is None else int(value.nbytes)
    return total
