"""Inference refusals remembered while the graph is being built.

During extraction ``try_infer`` leaves a node's facts unknown when its op refuses its inputs
(the graph may still be incomplete). If a later extractor then fails for want of those facts
(an unknown rank, a value it needs), the refusal is the error to report, not what it caused.
"""

from __future__ import annotations

from collections.abc import Iterable

from irconv.errors import UserError
from irconv.graph._node import Node
from irconv.graph.meta import MetaKey

INFERENCE_REFUSALS: MetaKey[dict[int, UserError]] = MetaKey(
    "core.inference_refusals", dict, dict, doc="node id -> the error its last try_infer raised"
)


def remember_refusal(node: Node, error: UserError) -> None:
    """Keep ``error`` as ``node``'s refusal (without its traceback: its frames are not needed)."""
    node.graph.meta.setdefault(INFERENCE_REFUSALS)[node.id] = error.with_traceback(None)


def forget_refusal(node: Node) -> None:
    """``node`` inferred: an earlier refusal of it no longer holds."""
    refusals = node.graph.meta.get(INFERENCE_REFUSALS)
    if refusals:
        refusals.pop(node.id, None)


def upstream_refusal(nodes: Iterable[Node]) -> UserError | None:
    """The earliest remembered refusal among ``nodes`` and the nodes they read from, directly or not."""
    stack = list(nodes)
    if not stack:
        return None
    refusals = stack[0].graph.meta.get(INFERENCE_REFUSALS)
    if not refusals:
        return None
    reached = {node.id for node in stack}
    while stack:
        for port in stack.pop().in_ports():
            source = port.get_source()
            if source is not None and source.node.id not in reached:
                reached.add(source.node.id)
                stack.append(source.node)
    return next((error for node_id, error in refusals.items() if node_id in reached), None)
