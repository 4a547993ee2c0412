"""An If whose condition is decided -> the chosen branch, inlined."""

from __future__ import annotations

from irconv import Graph, Node, TransformContext
from irconv.graph import OutPort
from irconv.plugins import Transform
from irconv_opset import If
from irconv_opset.inline import inline_graph
from irconv_opset.partial import symbolic_condition

from irconv_transforms._fusion import AFTER_LAYOUT, PATTERN_FUSIONS


class FoldDecidedIf(Transform):
    """``If(c, ...)`` whose condition ``c`` is a constant, or decided by the symbols of the
    shapes it compares (``k.size(-2) != q.size(-2)`` for tensors whose dims are one symbol)
    -> the ops of the branch it takes, in the outer graph; the other branch is gone.

    Exporters keep Python branches on shapes as If when a tracer sees a tensor condition
    (DeBERTa's relative positions); the CPU plugin refuses an If whose branches give
    different ranks. Not a fusion: ``--disable-fusing`` leaves it on."""

    id = "fold.decided_if"
    run_after = AFTER_LAYOUT
    run_before = PATTERN_FUSIONS

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        changed = False
        for node in graph.by_type("If"):
            if node in graph and isinstance(node.op, If) and not ctx.is_frozen(node) and _inline(graph, node):
                changed = True
        if changed:
            graph.clean_up()
        return changed


def _inline(graph: Graph, node: Node) -> bool:
    op = node.op
    assert isinstance(op, If)
    decided = symbolic_condition(node.in_port(0).get_source())
    if decided is None or decided.size != 1 or decided.reshape(-1)[0] is None:
        return False
    taken = bool(decided.reshape(-1)[0])
    body, body_inputs, body_outputs = (
        (op.then_body, op.then_inputs, op.then_outputs) if taken else (op.else_body, op.else_inputs, op.else_outputs)
    )
    fed: dict[int, OutPort] = {}
    for item in body_inputs:
        source = node.in_port(item.external).get_source() if node.has_input(item.external) else None
        if item.sliced is not None or source is None:
            return False
        fed[item.parameter] = source
    parameters = body.parameters()
    if any(i not in fed and p.users() for i, p in enumerate(parameters)):
        return False  # a parameter the branch reads but no input feeds
    outputs = inline_graph(body, graph, [fed.get(i) for i in range(len(parameters))], node.name)
    for item in body_outputs:
        port = node.out_port(item.external)
        if port.get_destinations() or port.data.names:
            port.get_connection().set_source(outputs[item.result])
    return True
