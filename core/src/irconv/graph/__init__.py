"""The graph API: ``Graph``, ``Node``, ports, connections and patterns."""

from irconv.graph._connection import Connection
from irconv.graph._graph import Graph
from irconv.graph._node import Node
from irconv.graph._port import InPort, OutPort, TensorData
from irconv.graph.meta import GraphMeta, MetaKey
from irconv.graph.networkx_view import to_networkx
from irconv.graph.pattern import Match, Pat, any_, const, find_matches, match_at, op

__all__ = [
    "Connection",
    "Graph",
    "GraphMeta",
    "InPort",
    "Match",
    "MetaKey",
    "Node",
    "OutPort",
    "Pat",
    "TensorData",
    "any_",
    "const",
    "find_matches",
    "match_at",
    "op",
    "to_networkx",
]
