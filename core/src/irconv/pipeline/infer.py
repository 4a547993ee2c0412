"""Moved to ``irconv.graph.infer`` (inference lives with the graph); this name stays for
plugins written before 0.2."""

from irconv.graph.infer import *  # noqa: F403
from irconv.graph.infer import (
    describe_inputs,
    forget_facts,
    infer_graph,
    infer_node,
    node_outputs_reset,
    reinfer,
    try_infer,
)

__all__ = ["describe_inputs", "forget_facts", "infer_graph", "infer_node", "node_outputs_reset", "reinfer", "try_infer"]
